// The client against the real daemon (path in $DUNGEOND, started on a free
// loopback port): levels and their identity, late joins by level_id,
// problems as typed errors, lobbies kept right across a lost replica, and
// the retry on 503 that honours Retry-After.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { computeLevelHash, DungeondClient, DungeondProblem, LobbySync } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..", "..");
const SECRET = "0123456789abcdef0123456789abcdef";
const daemons: ChildProcess[] = [];

/** A daemon with the repository's config, `extra` on top; resolves to its URL. */
async function daemon(extra: Record<string, unknown> = {}, limits: Record<string, unknown> = {}) {
  const config = JSON.parse(readFileSync(join(repo, "config", "dungeond.json"), "utf8"));
  Object.assign(config.limits, limits);
  Object.assign(config, { roomsets_dir: join(repo, "config", "roomsets"), lobby_seed_secret: SECRET }, extra);
  const dir = mkdtempSync(join(tmpdir(), "dungeond-ts-"));
  writeFileSync(join(dir, "dungeond.json"), JSON.stringify(config));
  const binary = process.env.DUNGEOND;
  assert.ok(binary, "set DUNGEOND to the daemon's path");
  const child = spawn(binary, ["--config", join(dir, "dungeond.json"), "--listen", "127.0.0.1:0"],
    { stdio: ["ignore", "ignore", "pipe"] });
  daemons.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /"port":(\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`daemon exited ${code}: ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

after(() => {
  for (const child of daemons) if (child.exitCode === null) child.kill("SIGTERM");
});

test("the client view: no secrets, the full level's level_hash, by id and at the start", async () => {
  const { url } = await daemon();
  const client = new DungeondClient({ baseUrl: url });
  const request = { algorithm: "classic", seed: 3, params: { locks: 2, secret_door_chance: 0.5 } };
  const full = await client.level(request);
  const view = await client.clientLevel(request);
  assert.equal(view.level.view, "client");
  assert.equal(view.level.level_hash, full.level.level_hash);
  const text = new TextDecoder().decode(view.bytes);
  for (const secret of ['"seed"', '"level_id"', "secret", '"key"', '"progression"'])
    assert.ok(!text.includes(secret), `client view holds ${secret}`);
  const late = await client.clientLevelById(full.level.level_id);
  assert.deepEqual(late.bytes, view.bytes);
  const whole = { players: { ann: { level: 3 } } };
  const started = await client.start("ts-view", whole);
  const players = await client.startClientView("ts-view", whole);
  assert.equal(players.level.level_hash, started.level.level_hash);
});

test("a level names itself; its level_hash checks; a late joiner gets the same bytes by id", async () => {
  const { url } = await daemon();
  const client = new DungeondClient({ baseUrl: url });
  const answer = await client.level({ algorithm: "classic", seed: 4, players: [{ id: "b" }, { id: "a" }] });
  assert.equal(await computeLevelHash(answer.bytes), answer.level.level_hash);
  const spawns = answer.level.features.filter((f) => f.kind === "spawn").map((f) => f.player_id);
  assert.deepEqual(spawns, ["a", "b"]);
  const late = await client.levelById(answer.level.level_id);
  assert.deepEqual(late.bytes, answer.bytes);
  assert.equal(late.etag, answer.etag);
  const set = await client.levelSet({ algorithm: "classic", seed: 4 }, 2);
  assert.equal(set.format, "dungeond.levelset/1");
});

test("problems are typed errors naming the field", async () => {
  const { url } = await daemon();
  const client = new DungeondClient({ baseUrl: url });
  await assert.rejects(client.level({ algorithm: "classic", params: { width: 1 } }), (error) => {
    assert.ok(error instanceof DungeondProblem);
    assert.equal(error.status, 422);
    assert.equal(error.field, "params.width");
    return true;
  });
  await assert.rejects(client.levelById("nope"), (error) =>
    error instanceof DungeondProblem && error.status === 400 && error.field === "level_id");
  const { etag } = await client.putLobby("t1", { players: { ann: { level: 1 } } }, { createOnly: true });
  await assert.rejects(client.putLobby("t1", { players: {} }, { createOnly: true }), (error) =>
    error instanceof DungeondProblem && error.status === 412 && error.etag === etag);
  await assert.rejects(client.start("t1", { players: { bob: { level: 1 } } }), (error) =>
    error instanceof DungeondProblem && error.status === 409 && error.field === "players.bob");
});

test("a lobby kept in sync survives its replica being killed: the same level", async () => {
  const first = await daemon();
  const client = new DungeondClient({ baseUrl: first.url });
  const sync = new LobbySync(client, "ts-match", { profile: "party" });
  await sync.create();
  await sync.join("ann", { level: 12 });
  await sync.join("bob", { level: 7 });
  first.child.kill("SIGKILL");
  const second = await daemon();
  client.baseUrl = second.url; // the load balancer's failover
  await sync.join("cat", { level: 30 }); // 412 on the new replica: re-sent whole
  await sync.leave("bob");
  await sync.join("dan", { level: 3 });
  const level = await sync.start();
  // A replica that never failed, the same party joined in another order.
  const reference = await daemon();
  const other = new DungeondClient({ baseUrl: reference.url });
  await other.putLobby("ts-match", { profile: "party", players: {} });
  for (const [name, attributes] of [["dan", { level: 3 }], ["ann", { level: 12 }], ["cat", { level: 30 }]] as const)
    await other.join("ts-match", name, attributes);
  const expected = await other.start("ts-match", { profile: "party", players: sync.players });
  assert.deepEqual(level.bytes, expected.bytes);
  assert.equal(level.level.level_hash, expected.level.level_hash);
});

test("503 is retried after Retry-After", async () => {
  const { url } = await daemon({}, { lobbies_max: 1 });
  const client = new DungeondClient({ baseUrl: url, retries: 5 });
  await client.putLobby("full-a", { players: {} });
  const began = Date.now();
  const waiting = client.putLobby("full-b", { players: {} });
  setTimeout(() => void client.disband("full-a"), 300);
  const { lobby } = await waiting;
  assert.equal(lobby.id, "full-b");
  assert.ok(Date.now() - began >= 900, "answered before Retry-After passed");
  const impatient = new DungeondClient({ baseUrl: url, retries: 0 });
  await assert.rejects(impatient.putLobby("full-c", { players: {} }), (error) =>
    error instanceof DungeondProblem && error.status === 503);
});
