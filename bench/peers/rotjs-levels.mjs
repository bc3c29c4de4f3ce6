// Benchmark peer: rot.js map generators timed in node, beside dungeon bench.
// Usage: node rotjs-levels.mjs GENERATOR WIDTH HEIGHT SECONDS RUNS
// GENERATOR is Uniform or Digger (rot.js's rooms-and-corridors maps). Each
// level seeds rot.js's RNG with its own seed and is dug through the usual
// callback into a fresh tile array, all timed; prints one JSON object with
// the median levels/s over RUNS runs of SECONDS (wall clock) and the mean
// room count, so a reader can see the levels are of a comparable size.
import * as ROT from "rot-js";

const [name, width, height, seconds, runs] = process.argv.slice(2);
const generators = { Uniform: ROT.Map.Uniform, Digger: ROT.Map.Digger };
const W = Number(width), H = Number(height), S = Number(seconds), R = Number(runs);
if (!(name in generators) || !(W >= 10 && W <= 1000) || !(H >= 10 && H <= 1000) ||
    !(S > 0 && S <= 60) || !(Number.isInteger(R) && R >= 1 && R <= 101)) {
  process.stderr.write("usage: node rotjs-levels.mjs Uniform|Digger WIDTH HEIGHT SECONDS RUNS\n");
  process.exit(2);
}
const Generator = generators[name];
let seed = 1, levels = 0, rooms = 0;
const rates = [];
for (let r = 0; r < R; r++) {
  const start = process.hrtime.bigint();
  let runLevels = 0, elapsed = 0;
  while (elapsed < S) {
    ROT.RNG.setSeed(seed++);
    const tiles = new Uint8Array(W * H);
    const map = new Generator(W, H);
    map.create((x, y, wall) => { tiles[y * W + x] = wall ? 0 : 1; });
    rooms += map.getRooms().length;
    runLevels++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  rates.push(runLevels / elapsed);
  levels += runLevels;
}
rates.sort((a, b) => a - b);
const mid = rates.length >> 1;
const median = rates.length % 2 ? rates[mid] : (rates[mid - 1] + rates[mid]) / 2;
process.stdout.write(JSON.stringify({
  peer: `rot.js ${name}`, width: W, height: H, runs: R, seconds_per_run: S, levels,
  levels_per_second_median: median, levels_per_second_min: rates[0],
  levels_per_second_max: rates[rates.length - 1], mean_rooms: rooms / levels,
}) + "\n");
