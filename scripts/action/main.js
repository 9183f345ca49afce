// The action's main step: find or get the fakeentra binary, start `fakeentra serve` in the background for
// the job, wait for its health, and export what clients need. No dependencies beyond Node itself.
"use strict";
const { spawn, execFileSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { download, healthy, input, setEnv, setOutput, saveState, fail } = require("./runner");

async function main() {
  const work = path.join(process.env.RUNNER_TEMP || require("os").tmpdir(), "fakeentra");
  fs.mkdirSync(work, { recursive: true });
  const binary = await locateBinary(work);
  const port = input("port", "8443");
  const certs = path.join(work, "certs");
  const secret = crypto.randomBytes(24).toString("base64url");
  console.log(`::add-mask::${secret}`);
  const args = ["serve", "--port", port, "--certs", certs, `--control-secret=${secret}`];
  for (const scenario of list(input("scenario", ""))) args.push("--scenario", scenario);
  if (input("config", "")) args.push("--config", input("config", ""));
  args.push(...words(input("options", "")));

  const log = path.join(work, "serve.log");
  const out = fs.openSync(log, "a");
  const child = spawn(binary, args, { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  const url = `https://127.0.0.1:${port}`;
  const ca = path.join(certs, "ca.pem");
  saveState({ pid: String(child.pid), url, ca, secret, work, log });
  if (!(await healthy(url, ca, 60, () => child.exitCode !== null))) {
    fail(`fakeentra did not become healthy at ${url}; its log:\n${fs.existsSync(log) ? fs.readFileSync(log, "utf8").slice(-4000) : "(none)"}`);
    return;
  }
  const variables = {
    FAKEENTRA_URL: url, FAKEENTRA_CA: ca, FAKEENTRA_CONTROL_SECRET: secret,
    REQUESTS_CA_BUNDLE: ca, SSL_CERT_FILE: ca, CURL_CA_BUNDLE: ca, NODE_EXTRA_CA_CERTS: ca,
  };
  for (const [name, value] of Object.entries(variables)) setEnv(name, value);
  const outputs = { url, ca, authority: `${url}/common`, "control-secret": secret, journal: path.join(work, "journal.har") };
  for (const [name, value] of Object.entries(outputs)) setOutput(name, value);
  console.log(`FakeEntra ${execFileSync(binary, ["--version"]).toString().trim()} serves ${url} (CA ${ca}, log ${log})`);
}

/** `binary`, else fakeentra on the PATH, else `binary-url` downloaded, else built from this action's source. */
async function locateBinary(work) {
  const given = input("binary", "");
  if (given) return given;
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    const candidate = path.join(dir, "fakeentra");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  const url = input("binary-url", "");
  if (url) return download(url, work);
  const source = process.env.GITHUB_ACTION_PATH || path.resolve(__dirname, "..", "..");
  console.log(`Building fakeentra from ${source} with Swift (give 'binary' or 'binary-url' to skip this)`);
  // What Package.swift's system libraries need on a bare Debian or Ubuntu runner, found through pkg-config.
  const packages = ["libssl-dev", "libsqlite3-dev", "pkg-config"];
  const missing = packages.filter((name) => { try { execFileSync("dpkg", ["-s", name], { stdio: "ignore" }); return false; } catch (_) { return true; } });
  if (missing.length) {
    const [program, ...prefix] = process.getuid() === 0 ? ["apt-get"] : ["sudo", "apt-get"];
    execFileSync(program, [...prefix, "update", "-qq"], { stdio: "inherit" });
    execFileSync(program, [...prefix, "install", "-y", "-qq", ...missing], { stdio: "inherit" });
  }
  execFileSync("swift", ["build", "-c", "release", "--product", "fakeentra", "--package-path", source], { stdio: "inherit" });
  const bin = execFileSync("swift", ["build", "-c", "release", "--show-bin-path", "--package-path", source]).toString().trim();
  return path.join(bin, "fakeentra");
}

const list = (text) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
const words = (text) => text.split(/\s+/).filter(Boolean);

main().catch((error) => fail(error.stack || String(error)));
