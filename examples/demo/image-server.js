#!/usr/bin/env node
// The demo's image server: serves one small disk image over HTTP on loopback, so PVE's
// download-url (here the simulator's, which fetches from loopback only) has something to fetch
// without reaching the network. Prints one JSON line when ready — {"url","sha256","bytes"} — and
// serves until SIGTERM or SIGINT.
//
// The image is a blank raw disk of 1 MiB, made here: the simulated guests boot without reading
// it. Against a real cluster, point `imageUrl` at a real cloud image instead.
"use strict";
const { createHash } = require("node:crypto");
const { createServer } = require("node:http");
const { Buffer } = require("node:buffer");

const PATH = "/demo-cloud.raw";
const image = Buffer.alloc(1024 * 1024);

const server = createServer((req, res) => {
  if (req.method !== "GET" || req.url !== PATH) {
    res.writeHead(404, "Not Found").end();
    return;
  }
  res.writeHead(200, {
    "content-type": "application/octet-stream",
    "content-length": String(image.length),
  });
  res.end(image);
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const sha256 = createHash("sha256").update(image).digest("hex");
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${port}${PATH}`, sha256, bytes: image.length })}\n`,
  );
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
