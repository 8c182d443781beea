// The `fverkle-witness` package against the shared vectors and the conformance suite, run by
// `scripts/wasm-test.sh` (node --test). The package is loaded from $FVERKLE_WASM_PKG
// (default wasm/pkg); the vectors from $FVERKLE_VECTORS (default ../shared/vectors beside the
// checkout).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const pkgDir = path.resolve(process.env.FVERKLE_WASM_PKG ?? path.join(repo, "wasm/pkg"));
const vectorsDir = path.resolve(process.env.FVERKLE_VECTORS ?? path.join(repo, "../shared/vectors"));
if (!fs.existsSync(vectorsDir)) {
  throw new Error(`shared vectors not found at ${vectorsDir} (set FVERKLE_VECTORS)`);
}
if (!fs.existsSync(path.join(pkgDir, "package.json"))) {
  throw new Error(`package not built at ${pkgDir} (run scripts/wasm.sh)`);
}
const esm = await import(path.join(pkgDir, "node.mjs"));
const cjs = createRequire(import.meta.url)(path.join(pkgDir, "node/fverkle_witness.js"));
const { verify, verifyBinary, treeKey, version } = esm;

const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const vector = (rel) => path.join(vectorsDir, rel);
const suite = (name) => readJson(path.join(repo, "vectors/suite", name)).cases;
const hexBytes = (h) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ""), "hex"));
const chain = readJson(vector("chain/kaustinen6_witness_chain_0001-0200.json")).blocks;
// Block 1's witness omits the EIP-2935 history account's leaves (shared/vectors/README.md).
const WITNESS_OMITS_WRITES = new Set([1]);

/** A result has exactly the documented shape. */
function assertShape(r) {
  assert.deepEqual(Object.keys(r).sort(), ["error", "keys", "postStateRoot", "stems", "unboundAbsences", "valid"]);
  assert.equal(typeof r.valid, "boolean");
  assert.ok(r.error === null || typeof r.error === "string");
  for (const k of ["stems", "keys", "unboundAbsences"]) assert.ok(Number.isInteger(r[k]) && r[k] >= 0, k);
  assert.ok(r.postStateRoot === null || /^0x[0-9a-f]{64}$/.test(r.postStateRoot));
  if (!r.valid) assert.ok(r.error.length > 0);
}

test("both entries load the same module", () => {
  assert.equal(version(), cjs.version());
  assert.match(version(), /^\d+\.\d+\.\d+/);
});

test("a spread of the Kaustinen6 chain verifies, with post-state roots equal to the blocks'", () => {
  const picked = chain.filter((_, i) => i % 5 === 0 || i === 199);
  for (const b of picked) {
    const r = verify(JSON.stringify(b), b.parentStateRoot);
    assertShape(r);
    assert.equal(r.valid, true, `block ${b.blockNumber}: ${r.error}`);
    assert.ok(r.stems > 0 && r.keys >= r.stems);
    if (!WITNESS_OMITS_WRITES.has(Number(b.blockNumber))) {
      assert.equal(r.postStateRoot, b.stateRoot, `block ${b.blockNumber}`);
    }
  }
});

test("the package exports exactly verify, verifyBinary, treeKey and version", () => {
  const names = ["treeKey", "verify", "verifyBinary", "version"];
  assert.deepEqual(Object.keys(esm).sort(), names);
  assert.deepEqual(Object.keys(cjs).filter((k) => typeof cjs[k] === "function").sort(), names);
});

test("a block against its neighbour's root is invalid, with the reason", () => {
  for (let i = 10; i < 200; i += 19) {
    const b = chain[i];
    const other = chain[i + 1 < 200 ? i + 1 : i - 1].parentStateRoot;
    assert.notEqual(other, b.parentStateRoot);
    const r = verify(JSON.stringify(b.executionWitness), other);
    assertShape(r);
    assert.equal(r.valid, false);
    assert.match(r.error, /does not prove the witness against the pre-state root/);
    assert.equal(r.postStateRoot, null);
  }
});

test("geth's block 72 files: valid and invalid", () => {
  const root = "0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510";
  const good = verify(fs.readFileSync(vector("witness/valid_block_72.json"), "utf8"), root);
  assert.equal(good.valid, true, good.error);
  const bad = verify(fs.readFileSync(vector("witness/invalid_block_72.json"), "utf8"), root);
  assert.equal(bad.valid, false);
});

test("the EEST fixture's witness verifies against its genesis and gives the block's root", () => {
  const text = fs.readFileSync(vector("witness/eest_verkleBlock.json"), "utf8");
  const doc = JSON.parse(text);
  const genesis = doc.genesisBlockHeader.stateRoot;
  const r = verify(text, genesis);
  assert.equal(r.valid, true, r.error);
  assert.equal(r.postStateRoot, doc.blocks[0].blockHeader.stateRoot);
  assert.equal(r.stems, 4);
  assert.equal(r.keys, 7);
  assert.equal(r.unboundAbsences, 0); // as `fverkle verify --json` reports: both absences bound
});

test("every witness case of the conformance suite, as JSON and as SSZ", () => {
  let n = 0;
  for (const c of suite("witness_valid.json")) {
    for (const input of [JSON.stringify(c.input.json), hexBytes(c.input.ssz)]) {
      const r = verify(input, c.input.pre_state_root);
      assertShape(r);
      assert.equal(r.valid, true, `${c.name}: ${r.error}`);
      assert.equal(r.unboundAbsences, c.output.unbound_absences, c.name);
      if (c.output.post_state_root) assert.equal(r.postStateRoot, c.output.post_state_root, c.name);
      n++;
    }
  }
  for (const c of suite("witness_invalid.json")) {
    const inputs = [];
    if (c.input.json !== undefined) inputs.push(JSON.stringify(c.input.json));
    if (c.input.ssz !== undefined) inputs.push(hexBytes(c.input.ssz));
    for (const input of inputs) {
      const r = verify(input, c.input.pre_state_root);
      assertShape(r);
      assert.equal(r.valid, false, c.name);
      n++;
    }
  }
  assert.ok(n > 100, `${n} suite inputs`);
});

test("suffix as a decimal string (geth) verifies like the number", () => {
  const b = chain[4];
  const w = structuredClone(b.executionWitness);
  for (const s of w.stateDiff) for (const d of s.suffixDiffs) d.suffix = String(d.suffix);
  const r = verify(JSON.stringify(w), b.parentStateRoot);
  assert.equal(r.valid, true, r.error);
  assert.equal(r.postStateRoot, b.stateRoot);
});

test("tree keys: every vector of the suite, 20- and 32-byte addresses", () => {
  for (const c of suite("tree_key.json")) {
    const le = Buffer.from(c.input.tree_index.replace(/^0x/, ""), "hex");
    const index = BigInt("0x" + (Buffer.from(le).reverse().toString("hex") || "0"));
    assert.equal(treeKey(c.input.address, index, c.input.sub_index), c.output.tree_key, c.name);
    if (c.input.address.startsWith("0x000000000000000000000000")) {
      const short = "0x" + c.input.address.slice(26);
      assert.equal(treeKey(short, index, c.input.sub_index), c.output.tree_key, c.name);
    }
  }
  assert.throws(() => treeKey("0x1234", 0n, 0), TypeError);
  assert.throws(() => treeKey("0x" + "11".repeat(20), -1n, 0), TypeError);
  assert.throws(() => treeKey("0x" + "11".repeat(20), 1n << 256n, 0), TypeError);
  assert.throws(() => treeKey("0x" + "11".repeat(20), 0n, 256), TypeError);
  assert.throws(() => treeKey("0x" + "11".repeat(20), 0, 0), TypeError);
});

test("only a malformed root throws, and it throws a TypeError", () => {
  const w = JSON.stringify(chain[4].executionWitness);
  for (const root of ["", "0x12", "0x" + "zz".repeat(32), 5, null, undefined]) {
    assert.throws(() => verify(w, root), TypeError, String(root));
  }
  for (const witness of [5, null, {}, "", "{", new Uint8Array(0), new Uint8Array(3)]) {
    const r = verify(witness, chain[4].parentStateRoot);
    assertShape(r);
    assert.equal(r.valid, false);
  }
});

/** A seeded PRNG (xorshift32), so a failing mutant can be reproduced. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
}

test("mutants of real witnesses: always a verdict, never a throw, and the instance stays sound", () => {
  const next = rng(0x5eed);
  const sszCases = suite("witness_valid.json").map((c) => [hexBytes(c.input.ssz), c.input.pre_state_root]);
  let accepted = 0;
  const total = 3000;
  for (let i = 0; i < total; i++) {
    const [ssz, root] = sszCases[next() % sszCases.length];
    let input;
    if (i % 3 === 2) {
      // JSON: replace one hex digit of the text, or cut it.
      const b = chain[next() % 200];
      let text = JSON.stringify(b.executionWitness);
      const at = next() % text.length;
      text = i % 2 ? text.slice(0, at) : text.slice(0, at) + "0123456789abcdef"[next() % 16] + text.slice(at + 1);
      input = text;
    } else {
      // SSZ: flip bytes, truncate or extend.
      const m = Uint8Array.from(ssz);
      const flips = 1 + (next() % 4);
      for (let k = 0; k < flips; k++) m[next() % m.length] ^= 1 + (next() % 255);
      input = next() % 7 === 0 ? m.subarray(0, next() % m.length) : m;
    }
    const r = verify(input, root);
    assertShape(r);
    if (r.valid) accepted++;
  }
  // The instance still answers correctly after the whole corpus.
  const b = chain[9];
  assert.equal(verify(JSON.stringify(b), b.parentStateRoot).valid, true);
  assert.equal(verify(JSON.stringify(b), chain[10].parentStateRoot).valid, false);
  assert.ok(accepted < total, `${accepted} of ${total} mutants accepted`);
});

test("the README's JavaScript example runs as written", async () => {
  const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
  const m = readme.match(/```js\n([\s\S]*?)```/);
  assert.ok(m, "README has a ```js block");
  const code = m[1]
    .replace(`from "fverkle-witness"`, `from ${JSON.stringify(path.join(pkgDir, "node.mjs"))}`)
    .replace(/block\.json/g, path.join(here, ".readme-block.json").replace(/\\/g, "/"));
  const file = path.join(here, ".readme-example.mjs");
  fs.writeFileSync(path.join(here, ".readme-block.json"), JSON.stringify(chain[4]));
  fs.writeFileSync(file, code);
  try {
    const logs = [];
    const log = console.log;
    console.log = (...a) => logs.push(a.join(" "));
    try {
      await import(file + "?t=" + Date.now());
    } finally {
      console.log = log;
    }
    assert.deepEqual(logs, [`true ${chain[4].stateRoot} ${treeKey("0x" + "00".repeat(20), 0n, 0)}`]);
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(path.join(here, ".readme-block.json"), { force: true });
  }
});

/** A binary-witness result has exactly the documented shape. */
function assertBinaryShape(r) {
  assert.deepEqual(Object.keys(r).sort(), ["error", "keys", "postStateRoot", "rule", "valid"]);
  assert.equal(typeof r.valid, "boolean");
  assert.ok(Array.isArray(r.keys));
  for (const k of r.keys) {
    assert.deepEqual(Object.keys(k).sort(), ["key", "preValue", "write"]);
    assert.match(k.key, /^0x([0-9a-f]{2})+$/);
    assert.ok(k.preValue === null || /^0x[0-9a-f]{64}$/.test(k.preValue));
    assert.ok(k.write === null || k.write === "delete" || /^0x[0-9a-f]{64}$/.test(k.write));
  }
  if (r.valid) {
    assert.equal(r.error, null);
    assert.equal(r.rule, null);
    assert.match(r.postStateRoot, /^0x[0-9a-f]{64}$/);
  } else {
    assert.ok(r.error.length > 0);
    assert.match(r.rule, /^bw\./);
    assert.equal(r.postStateRoot, null);
    assert.equal(r.keys.length, 0);
  }
}

test("every binary-witness case of the conformance suite (EIP-7864 and EIP-8297)", () => {
  const seen = { eip7864: 0, eip8297: 0 };
  for (const c of suite("binary_witness_valid.json")) {
    const { tree, hash, witness, pre_state_root } = c.input;
    const r = verifyBinary(hexBytes(witness), pre_state_root, tree, hash);
    assertBinaryShape(r);
    assert.equal(r.valid, true, `${c.name}: ${r.error}`);
    assert.equal(r.postStateRoot, c.output.post_state_root, c.name);
    assert.deepEqual(
      r.keys,
      c.output.keys.map((k) => ({ key: k.key, preValue: k.pre_value, write: k.write })),
      c.name,
    );
    seen[tree]++;
  }
  assert.ok(seen.eip7864 > 0 && seen.eip8297 > 0, JSON.stringify(seen));
  let invalid = 0;
  for (const c of suite("binary_witness_invalid.json")) {
    const { tree, hash, witness, pre_state_root } = c.input;
    const r = verifyBinary(hexBytes(witness), pre_state_root, tree, hash);
    assertBinaryShape(r);
    assert.equal(r.valid, false, c.name);
    assert.equal(r.rule, c.rule, c.name);
    invalid++;
  }
  assert.ok(invalid >= 30, `${invalid} invalid cases`);
});

test("binary witnesses: the default hash is each tree's own, and only malformed arguments throw", () => {
  const c = suite("binary_witness_valid.json").find((c) => c.input.tree === "eip7864" && c.input.hash === "sha256");
  const bytes = hexBytes(c.input.witness);
  const root = c.input.pre_state_root;
  assert.equal(verifyBinary(bytes, root, "eip7864").valid, true);
  assert.equal(verifyBinary(bytes, root, "eip7864", "blake3").rule, "bw.hash");
  assert.equal(verifyBinary(bytes, root, "eip8297").rule, "bw.tree");
  const other = verifyBinary(bytes, "0x" + "11".repeat(32), "eip7864");
  assert.equal(other.valid, false);
  assert.equal(other.rule, "bw.root");
  assert.throws(() => verifyBinary(bytes, root, "verkle"), TypeError);
  assert.throws(() => verifyBinary(bytes, root, "eip7864", "md5"), TypeError);
  assert.throws(() => verifyBinary(bytes, "0x12", "eip7864"), TypeError);
  assert.throws(() => verifyBinary("0x00", root, "eip7864"), TypeError);
});

test("mutants of binary witnesses: a verdict for each, and what verifies claims what the honest one does", () => {
  const next = rng(0xb1a7);
  const cases = suite("binary_witness_valid.json");
  let accepted = 0;
  let rejected = 0;
  for (let i = 0; i < 3000; i++) {
    const c = cases[next() % cases.length];
    const { tree, hash, pre_state_root } = c.input;
    const m = hexBytes(c.input.witness);
    const flips = 1 + (next() % 3);
    for (let k = 0; k < flips; k++) m[next() % m.length] ^= 1 + (next() % 255);
    const input = next() % 9 === 0 ? m.subarray(0, next() % m.length) : m;
    const r = verifyBinary(input, pre_state_root, tree, hash);
    assertBinaryShape(r);
    if (!r.valid) {
      rejected++;
      continue;
    }
    accepted++;
    // Pre-state claims of keys the honest witness names are the honest ones.
    const honest = new Map(c.output.keys.map((k) => [k.key, k.pre_value]));
    for (const k of r.keys) {
      if (honest.has(k.key)) assert.equal(k.preValue, honest.get(k.key), `${c.name}: ${k.key}`);
    }
  }
  assert.ok(rejected > 2000, `${rejected} rejected`);
  assert.ok(accepted + rejected === 3000);
});
