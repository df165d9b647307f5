"""Writes a tiny llama-architecture GGUF model with random weights and a real code model's
vocabulary (FIM tokens included), for tests that need a real llama-server but not sense.

usage: make-tiny-gguf.py VOCAB_ONLY.gguf OUT.gguf
"""
import sys

import numpy as np
from gguf import GGUFReader, GGUFWriter, GGUFValueType


def field_value(field):
    """A reader field as a plain Python value (scalars, strings and arrays of them)."""
    kind = field.types[0]
    if kind == GGUFValueType.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8")
    if kind == GGUFValueType.ARRAY:
        inner = field.types[1]
        if inner == GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8", errors="replace") for i in field.data]
        return [field.parts[i].tolist()[0] for i in field.data]
    return field.parts[field.data[0]].tolist()[0]


def main(vocab_path, out_path):
    reader = GGUFReader(vocab_path)
    fields = {name: f for name, f in reader.fields.items()}
    tokens = field_value(fields["tokenizer.ggml.tokens"])
    n_vocab = len(tokens)
    n_embd, n_ff, n_head, n_ctx = 64, 128, 4, 2048

    w = GGUFWriter(out_path, "llama")
    w.add_name("pilotfish-tiny-test-model")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(1)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(0)  # all F32

    # Every tokenizer key of the vocabulary file, with its type.
    for name, f in fields.items():
        if not name.startswith("tokenizer."):
            continue
        value = field_value(f)
        kind = f.types[0]
        if kind == GGUFValueType.ARRAY:
            w.add_array(name, value)
        elif kind == GGUFValueType.STRING:
            w.add_string(name, value)
        elif kind == GGUFValueType.BOOL:
            w.add_bool(name, bool(value))
        elif kind == GGUFValueType.UINT32:
            w.add_uint32(name, int(value))
        elif kind == GGUFValueType.INT32:
            w.add_int32(name, int(value))
        elif kind == GGUFValueType.FLOAT32:
            w.add_float32(name, float(value))

    rng = np.random.default_rng(7)
    def t(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)
    ones = lambda n: np.ones(n, dtype=np.float32)
    w.add_tensor("token_embd.weight", t(n_vocab, n_embd))
    w.add_tensor("output_norm.weight", ones(n_embd))
    w.add_tensor("output.weight", t(n_vocab, n_embd))
    w.add_tensor("blk.0.attn_norm.weight", ones(n_embd))
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        w.add_tensor(f"blk.0.{name}.weight", t(n_embd, n_embd))
    w.add_tensor("blk.0.ffn_norm.weight", ones(n_embd))
    w.add_tensor("blk.0.ffn_gate.weight", t(n_ff, n_embd))
    w.add_tensor("blk.0.ffn_up.weight", t(n_ff, n_embd))
    w.add_tensor("blk.0.ffn_down.weight", t(n_embd, n_ff))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"make-tiny-gguf: wrote {out_path} ({n_vocab} tokens)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
