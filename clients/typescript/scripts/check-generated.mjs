// Fails when src/schema.ts is not what openapi-typescript makes from
// docs/openapi.yaml now: the types must follow every API change.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const fresh = join(mkdtempSync(join(tmpdir(), "dungeond-schema-")), "schema.ts");
execFileSync(process.execPath, ["node_modules/openapi-typescript/bin/cli.js",
  "../../docs/openapi.yaml", "-o", fresh], { stdio: "inherit" });
if (readFileSync(fresh, "utf8") !== readFileSync("src/schema.ts", "utf8")) {
  console.error("src/schema.ts is stale: run `npm run generate` and commit it");
  process.exit(1);
}
console.log("src/schema.ts matches docs/openapi.yaml");
