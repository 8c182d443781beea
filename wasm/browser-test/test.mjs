// The light-client page (wasm/www/) in a real headless Chromium: load it, paste a Kaustinen6
// witness and its pre-state root, press Verify, read the verdict, save a screenshot under
// target/. Run by `scripts/wasm-test.sh --browser` after the package is built into wasm/pkg.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const wasmDir = path.resolve(here, "..");
const repo = path.resolve(wasmDir, "..");
const vectorsDir = path.resolve(process.env.FVERKLE_VECTORS ?? path.join(repo, "../shared/vectors"));
const chainFile = path.join(vectorsDir, "chain/kaustinen6_witness_chain_0001-0200.json");
if (!fs.existsSync(chainFile)) throw new Error(`missing ${chainFile} (set FVERKLE_VECTORS)`);
const shot = path.join(repo, "target/wasm-page.png");
const chromePath = process.env.CHROMIUM ?? "/usr/bin/chromium";

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  const file = path.join(wasmDir, path.normalize(decodeURIComponent(url.pathname)));
  if (!file.startsWith(wasmDir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}`;

const blocks = JSON.parse(fs.readFileSync(chainFile, "utf8")).blocks;
const block = blocks[41];
const browser = await chromium.launch({ executablePath: chromePath, args: ["--no-sandbox"] });
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${base}/www/index.html`);
  await page.waitForFunction(() => !document.getElementById("verify").disabled, null, { timeout: 30000 });

  const verdict = async (witness, root) => {
    await page.fill("#root", root);
    await page.fill("#witness", witness);
    await page.click("#verify");
    await page.waitForFunction(() => document.getElementById("verdict").textContent !== "");
    const text = await page.textContent("#verdict");
    const field = async (k) => page.textContent(`dd[data-field="${k}"]`);
    return { text, stems: await field("stems"), keys: await field("keys"), post: await field("post-state root"), time: await field("time") };
  };
  const good = await verdict(JSON.stringify(block.executionWitness), block.parentStateRoot);
  await fs.promises.mkdir(path.dirname(shot), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`block ${block.blockNumber}: ${good.text}, stems ${good.stems}, keys ${good.keys}, ${good.time}; screenshot ${shot}`);
  const check = (cond, what) => { if (!cond) { failed = true; console.error(`FAIL: ${what}`); } };
  check(good.text === "valid", `verdict "${good.text}", expected "valid"`);
  check(good.post === block.stateRoot, `post-state root ${good.post}, expected ${block.stateRoot}`);
  check(Number(good.stems) > 0 && Number(good.keys) >= Number(good.stems), "stems and keys shown");
  // The same witness against another block's root.
  await page.evaluate(() => { document.getElementById("verdict").textContent = ""; });
  const bad = await verdict(JSON.stringify(block.executionWitness), blocks[42].parentStateRoot);
  check(bad.text === "invalid", `wrong root gave "${bad.text}", expected "invalid"`);
  check(errors.length === 0, `page errors: ${errors.join("; ")}`);
} finally {
  await browser.close();
  server.close();
}
if (failed) process.exit(1);
console.log("browser test: ok");
