// Render formulas with KaTeX and report those that fail (test-only; tests/test_latex.py).
// Input on stdin: JSON [{"tex": "...", "display": false, "macros": {"\\lla": "..."}}, ...].
// Output on stdout: JSON [{"index": i, "error": "..."}] for each formula KaTeX rejects.
"use strict";
const katex = require("katex");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const formulas = JSON.parse(input);
  const failures = [];
  formulas.forEach((f, index) => {
    try {
      katex.renderToString(f.tex, {
        displayMode: Boolean(f.display),
        throwOnError: true,
        strict: "error",
        macros: Object.assign({}, f.macros || {}),
      });
    } catch (error) {
      failures.push({ index, error: String(error.message || error) });
    }
  });
  process.stdout.write(JSON.stringify(failures));
});
