// Five real @colyseus/sdk clients in a real Colyseus room backed by the real
// daemon ($DUNGEOND): three join, dungeond is killed (SIGKILL) and restarted
// on the same port mid-lobby, a fourth joins, one of the first three leaves
// (removed from the dungeond lobby and from the spawns), the three left
// start; a fifth joins after the start and gets the level's client view by
// its level_id (which only the room holds). Every client ends with the same
// client view, holding no secret, and the room state's level_hash.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "@colyseus/sdk";
import { listen } from "../src/server.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const children = [];
let gameServer;

after(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  if (gameServer) await gameServer.gracefullyShutdown(false);
});

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function dungeond(port) {
  const config = JSON.parse(readFileSync(join(repo, "config", "dungeond.json"), "utf8"));
  config.roomsets_dir = join(repo, "config", "roomsets");
  config.lobby_seed_secret = "fedcba9876543210fedcba9876543210";
  const dir = mkdtempSync(join(tmpdir(), "dungeond-colyseus-"));
  writeFileSync(join(dir, "dungeond.json"), JSON.stringify(config));
  const child = spawn(process.env.DUNGEOND, ["--config", join(dir, "dungeond.json"),
                                             "--listen", `127.0.0.1:${port}`],
                      { stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  await new Promise((resolve, reject) => {
    let seen = "";
    child.stderr.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes('"event":"listening"')) resolve();
    });
    child.on("exit", (code) => reject(new Error(`dungeond exited ${code}: ${seen}`)));
  });
  return child;
}

/** The next "level" message of `room`: its text, parsed. */
function nextLevel(room) {
  return new Promise((resolve) => room.onMessage("level", (text) => {
    resolve({ level: JSON.parse(text), text });
  }));
}

test("five clients, a dungeond restart mid-lobby, a leave, a late joiner: one level_hash", async () => {
  assert.ok(process.env.DUNGEOND, "set DUNGEOND to the daemon's path");
  const dungeondPort = await freePort();
  let daemon = await dungeond(dungeondPort);
  const gamePort = await freePort();
  gameServer = await listen(gamePort, `http://127.0.0.1:${dungeondPort}`);
  const endpoint = `ws://127.0.0.1:${gamePort}`;

  const ann = await new Client(endpoint).create("dungeon", { player: "ann", level: 12 });
  const bob = await new Client(endpoint).joinById(ann.roomId, { player: "bob", level: 7 });
  const eve = await new Client(endpoint).joinById(ann.roomId, { player: "eve", level: 20 });

  daemon.kill("SIGKILL");
  await new Promise((resolve) => daemon.once("exit", resolve));
  daemon = await dungeond(dungeondPort); // restarted: it knows no lobby

  const cat = await new Client(endpoint).joinById(ann.roomId, { player: "cat", level: 30 });

  // eve leaves before the start: the room removes her from the dungeond
  // lobby (its DELETE after the restart's re-sent whole lobby).
  const lobbyUrl = `http://127.0.0.1:${dungeondPort}/v1/lobbies/colyseus-${ann.roomId}`;
  const lobbyPlayers = async () => {
    const answer = await fetch(lobbyUrl);
    return answer.ok ? Object.keys((await answer.json()).players).sort() : [];
  };
  assert.deepEqual(await lobbyPlayers(), ["ann", "bob", "cat", "eve"],
                   "the restarted dungeond does not hold the whole lobby");
  await eve.leave();
  const gone = Date.now() + 10000;
  while ((await lobbyPlayers()).includes("eve") && Date.now() < gone)
    await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(await lobbyPlayers(), ["ann", "bob", "cat"], "eve's leave did not remove her");
  while (ann.state?.players?.has("eve") && Date.now() < gone)
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(!ann.state.players.has("eve"), "eve is still in the room state");
  const levels = [nextLevel(ann), nextLevel(bob), nextLevel(cat)];
  for (const room of [ann, bob, cat]) room.send("ready");
  const got = await Promise.all(levels);

  const dan = await new Client(endpoint).joinById(ann.roomId, { player: "dan", level: 3 });
  const late = nextLevel(dan);
  got.push(await late);

  // The state reaches clients with the next patch (patchRate), maybe after
  // the level message.
  const until = Date.now() + 10000;
  while (!ann.state?.levelHash && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  const state = ann.state;
  assert.ok(state?.levelHash?.startsWith("sha256:"), `room state ${JSON.stringify(state)}`);
  assert.equal(state.levelId, undefined, "the room state gives clients the level id");
  for (const { level, text } of got) {
    assert.equal(level.view, "client", "a client got the full level");
    assert.equal(level.level_hash, state.levelHash, "a client's level is not the room's");
    assert.equal(text, got[0].text, "two clients hold different client views");
    for (const secret of ['"level_id"', '"seed"', "secret", '"key"', '"progression"'])
      assert.ok(!text.includes(secret), `a client view holds ${secret}`);
  }
  const spawns = got[0].level.features.filter((f) => f.kind === "spawn").map((f) => f.player_id);
  assert.deepEqual(spawns, ["ann", "bob", "cat"],
                   "spawns are not the party's (without eve, who left), in id order");
  for (const room of [ann, bob, cat, dan]) await room.leave();
});
