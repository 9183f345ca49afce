// What the GitHub Actions runner gives a Node action, without @actions/core: inputs (INPUT_*), the
// GITHUB_ENV / GITHUB_OUTPUT / GITHUB_STATE files, STATE_* for the post step, and HTTPS against a CA.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const https = require("https");
const path = require("path");
const zlib = require("zlib");
const { execFileSync } = require("child_process");

/** An input as the runner passes it (`INPUT_<NAME>`, spaces as underscores, upper case). */
function input(name, fallback) {
  const value = process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`];
  return value === undefined || value.trim() === "" ? fallback : value.trim();
}

/** `name<<DELIMITER` … `DELIMITER`: the files' multi-line form, safe for any value. */
function appendTo(variable, name, value) {
  const file = process.env[variable];
  if (!file) throw new Error(`${variable} is not set: not running under a GitHub Actions runner`);
  const delimiter = `ghadelimiter_${crypto.randomUUID()}`;
  fs.appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}

const setEnv = (name, value) => appendTo("GITHUB_ENV", name, value);
const setOutput = (name, value) => appendTo("GITHUB_OUTPUT", name, value);
const saveState = (values) => { for (const [name, value] of Object.entries(values)) appendTo("GITHUB_STATE", name, value); };
/** What the main step saved, as the runner hands it to the post step (`STATE_<name>`). */
const state = (name) => process.env[`STATE_${name}`] || "";

function fail(message) {
  console.log(`::error::${message.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}`);
  process.exitCode = 1;
}

/** GET over HTTPS trusting `ca` only; resolves { status, body } (a Buffer). */
function get(url, ca, headers = {}) {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca: fs.readFileSync(ca), headers, timeout: 10000 }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }));
    });
    request.on("timeout", () => request.destroy(new Error(`${url}: timed out`)));
    request.on("error", reject);
  });
}

/** Polls /_fakeentra/health until 200, `gaveUp()` says the process died, or `seconds` pass. */
async function healthy(url, ca, seconds, gaveUp) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline && !gaveUp()) {
    if (fs.existsSync(ca)) {
      try {
        if ((await get(`${url}/_fakeentra/health`, ca)).status === 200) return true;
      } catch (_) { /* not listening yet */ }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** Downloads a binary (or a .tar.gz holding `fakeentra`) into `dir`; its path. */
async function download(url, dir) {
  const target = path.join(dir, url.endsWith(".tar.gz") || url.endsWith(".tgz") ? "fakeentra.tar.gz" : "fakeentra");
  await new Promise((resolve, reject) => {
    const fetch = (address, hops) => https.get(address, (response) => {
      if ([301, 302, 303, 307, 308].includes(response.statusCode) && hops < 5) return fetch(new URL(response.headers.location, address).toString(), hops + 1);
      if (response.statusCode !== 200) return reject(new Error(`${address}: HTTP ${response.statusCode}`));
      response.pipe(fs.createWriteStream(target)).on("finish", resolve).on("error", reject);
    }).on("error", reject);
    fetch(url, 0);
  });
  if (target.endsWith(".tar.gz")) {
    execFileSync("tar", ["-xzf", target, "-C", dir]);
    return path.join(dir, "fakeentra");
  }
  fs.chmodSync(target, 0o755);
  return target;
}

/** A zip archive (stored with deflate) of `files` ({ name: Buffer }), as artifacts are uploaded. */
function zip(files) {
  const locals = [], centrals = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const nameBytes = Buffer.from(name), deflated = zlib.deflateRawSync(data), crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(0x0800, 6); local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(deflated.length, 18); local.writeUInt32LE(data.length, 22); local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10); central.writeUInt32LE(crc, 16); central.writeUInt32LE(deflated.length, 20); central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28); central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, deflated);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + deflated.length;
  }
  const directory = Buffer.concat(centrals), end = Buffer.alloc(22);
  const count = Object.keys(files).length;
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(count, 8); end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function crc32(data) {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

module.exports = { input, setEnv, setOutput, saveState, state, fail, get, healthy, download, zip };
