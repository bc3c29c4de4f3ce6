// Times the npm `delaunator` package on the points blocks.c wrote (one
// coordinate per line), after a warm-up so that V8 has compiled it. Prints
// one JSON object: the median of 31 runs in milliseconds.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'peers', 'package.json'));
const { default: Delaunator } = await import(require.resolve('delaunator'));

const values = readFileSync(process.argv[2], 'utf8').trim().split('\n').map(Number);
const coords = Float64Array.from(values);
for (let i = 0; i < 20; i++) new Delaunator(coords);
const times = [];
let triangles = 0;
for (let i = 0; i < 31; i++) {
  const start = process.hrtime.bigint();
  const d = new Delaunator(coords);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  triangles = d.triangles.length / 3;
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ delaunator_ms: times[15], delaunator_triangles: triangles,
  delaunator_version: require('delaunator/package.json').version }));
