// The game server: one room type, "dungeon", on a WebSocket transport.
//   DUNGEOND_URL=http://127.0.0.1:8080 PORT=2567 node src/server.mjs
import { Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { DungeonRoom } from "./room.mjs";

export async function listen(port, dungeond) {
  const server = new Server({ transport: new WebSocketTransport(), greet: false });
  server.define("dungeon", DungeonRoom, { dungeond });
  await server.listen(port, "127.0.0.1");
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`)
  await listen(Number(process.env.PORT ?? 2567), process.env.DUNGEOND_URL ?? "http://127.0.0.1:8080");
