// Benchmark peer: a small Node.js service (node's own http module) that
// answers POST /v1/levels with a rot.js Uniform 80x25 map as JSON, the
// nearest off-the-shelf equivalent of dungeond's classic 80x21 request.
// Usage: node rotjs-server.mjs [PORT] (0 picks a free port); prints
// {"port": N} on stdout once listening. Binds 127.0.0.1 only.
import http from "node:http";
import * as ROT from "rot-js";

const WIDTH = 80;
const HEIGHT = 25;

function generate(seed) {
  ROT.RNG.setSeed(seed);
  const map = new ROT.Map.Uniform(WIDTH, HEIGHT);
  const rows = Array.from({ length: HEIGHT }, () => Array(WIDTH).fill(" "));
  map.create((x, y, wall) => {
    rows[y][x] = wall ? " " : ".";
  });
  const rooms = map.getRooms().map((room, id) => ({
    id,
    x: room.getLeft(),
    y: room.getTop(),
    width: room.getRight() - room.getLeft() + 1,
    height: room.getBottom() - room.getTop() + 1,
  }));
  return {
    format: "rotjs-uniform",
    algorithm: "uniform",
    seed,
    grid: { width: WIDTH, height: HEIGHT, rows: rows.map((r) => r.join("")) },
    rooms,
    corridors: map.getCorridors().length,
  };
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/v1/levels") {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"status":404}');
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end('{"status":400}');
      return;
    }
    const seed = Number.isInteger(body.seed) ? body.seed : Math.floor(Math.random() * 2 ** 31);
    const text = JSON.stringify(generate(seed));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(text);
  });
});

server.listen(Number(process.argv[2] || 0), "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
