// The `fverkle-witness` package built with its measuring switches
// (`FVERKLE_WASM_FEATURES=measure scripts/wasm.sh wasm/pkg-measure`, run by
// `scripts/wasm-test.sh`): arkworks' portable field multiplication gives what the 29-bit-limb
// one gives, and `verifyPreState` the verdict `verify` gives. The package is loaded from
// $FVERKLE_WASM_PKG; the vectors from $FVERKLE_VECTORS (default ../shared/vectors).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const pkgDir = path.resolve(process.env.FVERKLE_WASM_PKG ?? path.join(repo, "wasm/pkg-measure"));
const vectorsDir = path.resolve(process.env.FVERKLE_VECTORS ?? path.join(repo, "../shared/vectors"));
if (!fs.existsSync(vectorsDir)) {
  throw new Error(`shared vectors not found at ${vectorsDir} (set FVERKLE_VECTORS)`);
}
if (!fs.existsSync(path.join(pkgDir, "package.json"))) {
  throw new Error(`package not built at ${pkgDir} (run FVERKLE_WASM_FEATURES=measure scripts/wasm.sh wasm/pkg-measure)`);
}
const { verify, verifyPreState, usePortableField } = await import(path.join(pkgDir, "node.mjs"));
const chain = JSON.parse(fs.readFileSync(path.join(vectorsDir, "chain/kaustinen6_witness_chain_0001-0200.json"), "utf8")).blocks;
// Block 1's witness omits the EIP-2935 history account's leaves (shared/vectors/README.md).
const WITNESS_OMITS_WRITES = new Set([1]);

test("arkworks' portable field multiplication gives the same verdicts and roots", () => {
  const picked = chain.filter((_, i) => i % 25 === 3);
  const run = () =>
    picked.flatMap((b) => [verify(JSON.stringify(b), b.parentStateRoot), verify(JSON.stringify(b), chain[0].parentStateRoot)]);
  const fast = run();
  try {
    usePortableField(true);
    assert.deepEqual(run(), fast);
  } finally {
    usePortableField(false);
  }
  assert.deepEqual(run(), fast);
  assert.ok(fast.filter((r) => r.valid).length === picked.length, "each block valid against its own root only");
  picked.forEach((b, i) => {
    if (!WITNESS_OMITS_WRITES.has(Number(b.blockNumber))) assert.equal(fast[2 * i].postStateRoot, b.stateRoot);
  });
});

test("verifyPreState gives verify's verdict, on valid blocks, wrong roots and garbage", () => {
  for (let i = 0; i < 200; i += 7) {
    const b = chain[i];
    const json = JSON.stringify(b);
    assert.equal(verifyPreState(json, b.parentStateRoot), true, `block ${b.blockNumber}`);
    assert.equal(verify(json, b.parentStateRoot).valid, true);
    const other = chain[(i + 1) % 200].parentStateRoot;
    assert.equal(verifyPreState(json, other), false);
    assert.equal(verify(json, other).valid, false);
  }
  assert.equal(verifyPreState("{}", chain[0].parentStateRoot), false);
  assert.equal(verifyPreState(new Uint8Array([1, 2, 3]), chain[0].parentStateRoot), false);
  assert.throws(() => verifyPreState("{}", "0x12"), TypeError);
});
