// fverkle-witness beside verkle-cryptography-wasm 0.4.8 in one Node process, on the same
// witnesses: Kaustinen6 blocks 1..200 (scripts/wasm-bench.sh runs it).
//
//   [FVERKLE_PORTABLE_FIELD=1] node wasm/bench/bench.mjs [PASSES]
// Prints module load times, per-block mean and max for each verifier (the witness JSON is
// serialised before the timing; ours includes the post-state root), and .wasm sizes.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const pkgDir = path.resolve(process.env.FVERKLE_WASM_PKG ?? path.join(repo, "wasm/pkg"));
const vectorsDir = path.resolve(process.env.FVERKLE_VECTORS ?? path.join(repo, "../shared/vectors"));
const passes = Number(process.argv[2] ?? 5);

const chainFile = path.join(vectorsDir, "chain/kaustinen6_witness_chain_0001-0200.json");
if (!fs.existsSync(chainFile)) throw new Error(`missing ${chainFile} (set FVERKLE_VECTORS)`);
const blocks = JSON.parse(fs.readFileSync(chainFile, "utf8")).blocks.map((b) => ({
  number: Number(b.blockNumber),
  root: b.parentStateRoot,
  stateRoot: b.stateRoot,
  // verkle-cryptography-wasm's parser needs `suffix` as a number (geth writes a decimal
  // string, on which it panics); both verifiers get this same text.
  json: JSON.stringify(b.executionWitness, (k, v) => (k === "suffix" ? Number(v) : v)),
}));

let t = performance.now();
const ours = await import(path.join(pkgDir, "node.mjs"));
const oursLoad = performance.now() - t;
// FVERKLE_PORTABLE_FIELD=1: arkworks' field multiplication instead of the 29-bit-limb one.
const portable = process.env.FVERKLE_PORTABLE_FIELD === "1";
ours.usePortableField(portable);
t = performance.now();
const { loadVerkleCrypto } = await import("verkle-cryptography-wasm");
const theirs = await loadVerkleCrypto();
const theirsLoad = performance.now() - t;

function run(label, f) {
  const per = blocks.map(() => Infinity);
  const sums = blocks.map(() => 0);
  for (let p = 0; p < passes + 1; p++) {
    blocks.forEach((b, i) => {
      const s = performance.now();
      const ok = f(b);
      const d = performance.now() - s;
      if (!ok) throw new Error(`${label}: block ${b.number} not verified`);
      if (p > 0) {
        sums[i] += d;
        per[i] = Math.min(per[i], d);
      }
    });
  }
  const means = sums.map((s) => s / passes);
  const mean = means.reduce((a, b) => a + b, 0) / means.length;
  const max = Math.max(...means);
  const total = means.reduce((a, b) => a + b, 0);
  return { label, mean, max, total };
}

const a = run(`fverkle-witness verify (pre-state and post-state root${portable ? "; portable field" : ""})`, (b) => {
  const r = ours.verify(b.json, b.root);
  return r.valid && (b.number === 1 || r.postStateRoot === b.stateRoot);
});
const pre = run(`fverkle-witness verifyPreState (pre-state only, the anchor's work${portable ? "; portable field" : ""})`, (b) =>
  ours.verifyPreState(b.json, b.root),
);
const c = run("verkle-cryptography-wasm verifyExecutionWitnessPreState", (b) =>
  theirs.verifyExecutionWitnessPreState(b.root, b.json),
);

// Their module ships its .wasm base64-encoded inside a JavaScript file (`*_bg.js`): the
// size reported is the decoded binary's.
const theirsWasm = (() => {
  const dir = path.dirname(createRequire(import.meta.url).resolve("verkle-cryptography-wasm"));
  let found = null;
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (!found && e.name.endsWith(".wasm")) found = fs.readFileSync(p);
    else if (!found && e.name.endsWith("_bg.js")) {
      const m = fs.readFileSync(p, "utf8").match(/["'`]([A-Za-z0-9+/=]{10000,})["'`]/);
      const bytes = m && Buffer.from(m[1], "base64");
      if (bytes && bytes.subarray(0, 4).equals(Buffer.from([0, 0x61, 0x73, 0x6d]))) found = bytes;
    }
  });
  walk(path.resolve(dir, ".."));
  return found;
})();
const sizeOf = (raw) => `${raw.length} bytes, ${zlib.gzipSync(raw, { level: 9 }).length} gzipped`;

console.log(`node ${process.version}, ${passes} timed passes over blocks 1..200 (after one warm-up pass)`);
console.log(`module load: fverkle-witness ${oursLoad.toFixed(1)} ms, verkle-cryptography-wasm ${theirsLoad.toFixed(1)} ms`);
for (const r of [a, pre, c]) {
  console.log(`${r.label}: mean ${r.mean.toFixed(2)} ms a block, max ${r.max.toFixed(2)} ms, all 200 ${r.total.toFixed(0)} ms`);
}
console.log(`ratio (theirs / ours, pre-state only): mean ${(c.mean / pre.mean).toFixed(1)}x, max ${(c.max / pre.max).toFixed(1)}x`);
console.log(`ratio (theirs / ours with the post-state root): mean ${(c.mean / a.mean).toFixed(1)}x, max ${(c.max / a.max).toFixed(1)}x`);
// Ours as published (wasm/pkg, built by wasm-bench.sh), not the measuring build.
const publishedWasm = path.join(repo, "wasm/pkg/web/fverkle_witness_bg.wasm");
const oursWasm = fs.existsSync(publishedWasm) ? publishedWasm : path.join(pkgDir, "web/fverkle_witness_bg.wasm");
console.log(`wasm size: fverkle-witness ${sizeOf(fs.readFileSync(oursWasm))}; verkle-cryptography-wasm ${theirsWasm ? sizeOf(theirsWasm) : "not found"}`);
