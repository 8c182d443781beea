"""BLAKE3 with its default 32-byte output, in plain Python, for the binary trees of
spec/BINARY.md (EIP-8297 and the BLAKE3 form of EIP-7864).

Written from the BLAKE3 paper's definition: 1024-byte chunks of 64-byte blocks, a 7-round
compression function, chunk chaining values merged pairwise into a binary tree whose root
compression carries the ROOT flag. Only the hash mode (no key, no derive-key) and 32 bytes
of output.
"""

MASK = 0xFFFFFFFF
IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
      0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
PERMUTATION = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
CHUNK_START, CHUNK_END, PARENT, ROOT = 1, 2, 4, 8
BLOCK_LEN, CHUNK_LEN = 64, 1024


def _rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & MASK


def _g(s, a, b, c, d, x, y):
    s[a] = (s[a] + s[b] + x) & MASK
    s[d] = _rotr(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = _rotr(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b] + y) & MASK
    s[d] = _rotr(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = _rotr(s[b] ^ s[c], 7)


def _compress(cv, block, counter, block_len, flags):
    """The 16-word output of one compression; its first 8 words are the chaining value."""
    m = [int.from_bytes(block[4 * i:4 * i + 4], "little") for i in range(16)]
    s = list(cv) + list(IV[:4]) + [counter & MASK, (counter >> 32) & MASK, block_len, flags]
    for round_ in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1])
        _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5])
        _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9])
        _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13])
        _g(s, 3, 4, 9, 14, m[14], m[15])
        if round_ < 6:
            m = [m[p] for p in PERMUTATION]
    return [s[i] ^ s[i + 8] for i in range(8)] + [s[i + 8] ^ cv[i] for i in range(8)]


def _words_to_bytes(words):
    return b"".join(w.to_bytes(4, "little") for w in words)


def _chunk_output(chunk, counter):
    """(chaining value, last block, its length, its flags) of one chunk: everything the final
    compression needs, which takes the ROOT flag when this chunk is the whole input."""
    cv = IV
    blocks = [chunk[i:i + BLOCK_LEN] for i in range(0, len(chunk), BLOCK_LEN)] or [b""]
    for i, block in enumerate(blocks):
        flags = (CHUNK_START if i == 0 else 0) | (CHUNK_END if i == len(blocks) - 1 else 0)
        padded = block + bytes(BLOCK_LEN - len(block))
        if i == len(blocks) - 1:
            return cv, padded, len(block), flags, counter
        cv = _compress(cv, padded, counter, BLOCK_LEN, flags)[:8]
    raise AssertionError("unreachable")


def blake3(data: bytes) -> bytes:
    """The 32-byte BLAKE3 hash of `data`."""
    chunks = [data[i:i + CHUNK_LEN] for i in range(0, len(data), CHUNK_LEN)] or [b""]
    outputs = [_chunk_output(chunk, n) for n, chunk in enumerate(chunks)]
    if len(outputs) == 1:
        cv, block, block_len, flags, counter = outputs[0]
        return _words_to_bytes(_compress(cv, block, counter, block_len, flags | ROOT)[:8])
    cvs = [_compress(cv, block, counter, block_len, flags)[:8]
           for cv, block, block_len, flags, counter in outputs]
    # The tree over chunks: a left subtree holds the largest power of two of chunks that
    # leaves at least one chunk for the right subtree.
    return _words_to_bytes(_subtree(cvs, root=True))


def _subtree(cvs, root):
    if len(cvs) == 1:
        return cvs[0]
    left_len = 1
    while left_len * 2 < len(cvs):
        left_len *= 2
    left = _subtree(cvs[:left_len], False)
    right = _subtree(cvs[left_len:], False)
    block = _words_to_bytes(left) + _words_to_bytes(right)
    return _compress(IV, block, 0, BLOCK_LEN, PARENT | (ROOT if root else 0))[:8]
