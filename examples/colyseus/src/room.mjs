// A Colyseus room whose level comes from dungeond through @dungeond/client:
// create -> the lobby's settings, join -> a player, leave -> its removal,
// start (every player sent "ready") -> the level's client view to every
// client (no secrets, no seed, no level_id) and the level_hash in the room
// state; a client joining after the start gets the client view fetched by
// the level's id, which only the room holds (the id fetches the full
// level: docs/game-servers.md). The room keeps the party
// itself (LobbySync), so a dungeond restart mid-lobby costs nothing: the
// next change is refused with 412 and the whole lobby is re-sent.
import { Room } from "@colyseus/core";
import { schema, t } from "@colyseus/schema";
import { DungeondClient, LobbySync, computeLevelHash } from "@dungeond/client";

export const DungeonState = schema({
  levelHash: t.string(), // the full level's: every client view carries it too
  started: t.boolean(),
  players: t.map("number"), // player id -> level
});

export class DungeonRoom extends Room {
  maxClients = 8;

  async onCreate(options) {
    this.dungeond = new DungeondClient({ baseUrl: options.dungeond });
    // One dungeond lobby per match: a fresh id, so the seed is fresh too.
    this.lobby = new LobbySync(this.dungeond, `colyseus-${this.roomId}`,
                               { profile: options.profile ?? "party" });
    await this.lobby.create();
    this.setState(new DungeonState());
    this.ready = new Set();
    this.onMessage("ready", (client) => {
      this.ready.add(client.userData.player);
      if (this.ready.size === Object.keys(this.lobby.players).length) return this.startMatch();
    });
  }

  async onJoin(client, options) {
    const player = String(options.player);
    client.userData = { player };
    if (this.state.started) {
      // A late joiner: the client view by the level's id, from whichever
      // replica answers.
      const late = await this.dungeond.clientLevelById(this.levelId);
      client.send("level", new TextDecoder().decode(late.bytes));
      return;
    }
    await this.lobby.join(player, { level: Number(options.level ?? 1) });
    this.state.players.set(player, Number(options.level ?? 1));
  }

  async onLeave(client) {
    const player = client.userData?.player;
    if (this.state.started || player === undefined) return;
    this.ready.delete(player);
    this.state.players.delete(player);
    await this.lobby.leave(player);
  }

  async startMatch() {
    if (this.state.started) return;
    this.state.started = true;
    const { level, bytes } = await this.lobby.start();
    if ((await computeLevelHash(bytes)) !== level.level_hash)
      throw new Error("dungeond sent a level whose bytes do not match its level_hash");
    // The full level (its secrets, its level_id) stays on the server;
    // players get its client view, which carries the same level_hash.
    this.levelId = level.level_id;
    const view = await this.dungeond.clientLevelById(level.level_id);
    if (view.level.level_hash !== level.level_hash)
      throw new Error("dungeond sent a client view of another level");
    this.state.levelHash = level.level_hash;
    this.broadcast("level", new TextDecoder().decode(view.bytes));
  }
}
