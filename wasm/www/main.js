// The page's logic: load the package's web build, verify what was pasted or dropped.
import init, { verify, version } from "../pkg/web/fverkle_witness.js";

const $ = (id) => document.getElementById(id);
let sszBytes = null; // a dropped .ssz file, verified as bytes

function show(result, ms) {
  const v = $("verdict");
  v.textContent = result.valid ? "valid" : "invalid";
  v.className = result.valid ? "valid" : "invalid";
  const rows = [
    ["error", result.error ?? "–"],
    ["stems", result.stems],
    ["keys", result.keys],
    ["unbound absences", result.unboundAbsences],
    ["post-state root", result.postStateRoot ?? "–"],
    ["time", `${ms.toFixed(1)} ms`],
  ];
  $("details").replaceChildren(
    ...rows.flatMap(([k, val]) => {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = String(val);
      dd.dataset.field = k;
      return [dt, dd];
    }),
  );
}

function run() {
  const root = $("root").value.trim();
  const input = sszBytes ?? $("witness").value;
  const t = performance.now();
  try {
    show(verify(input, root), performance.now() - t);
  } catch (e) {
    // Only a malformed root throws.
    $("verdict").textContent = `not a root: ${e.message}`;
    $("verdict").className = "invalid";
    $("details").replaceChildren();
  }
}

$("witness").addEventListener("input", () => { sszBytes = null; });
const drop = $("drop");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", async (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const file = e.dataTransfer.files[0];
  if (!file) return;
  if (file.name.endsWith(".ssz")) {
    sszBytes = new Uint8Array(await file.arrayBuffer());
    $("witness").value = `(${file.name}: ${sszBytes.length} bytes of SSZ)`;
  } else {
    sszBytes = null;
    const text = await file.text();
    $("witness").value = text;
    try {
      const doc = JSON.parse(text);
      if (!$("root").value && typeof doc.parentStateRoot === "string") $("root").value = doc.parentStateRoot;
    } catch { /* verify reports it */ }
  }
  drop.textContent = file.name;
});
$("verify").addEventListener("click", run);

await init();
$("loaded").textContent = `fverkle-witness ${version()} loaded`;
$("verify").disabled = false;
