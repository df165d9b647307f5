import { runs } from "./math.mjs";

export const ready = runs() > 0;
throw new Error("flaky failed after " + runs() + " run(s) of math");
