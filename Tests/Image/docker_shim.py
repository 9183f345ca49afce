#!/usr/bin/env python3
"""The part of the docker CLI the pytest plugin's container servers use (image inspect, run, port, exec,
cp, logs, rm), over runc and the OCI layout of scripts/image: the plugin's container path runs against
the real image and a real OCI runtime on a machine without a container engine. `run --publish` cannot
publish a port without a network namespace of its own, so the container shares the host's network and
listens on a free port the shim picks, which `port` reports as the published one."""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import uuid

LAYOUT = pathlib.Path(os.environ["FAKEENTRA_SHIM_LAYOUT"])
STATE = pathlib.Path(os.environ.get("FAKEENTRA_SHIM_STATE", "/tmp/fakeentra-docker-shim"))


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def image_inspect(image):
    if image != "fakeentra:latest" or not (LAYOUT / "index.json").exists():
        fail(f"Error: No such image: {image}")
    print("[{}]")


def image_volumes():
    index = json.loads((LAYOUT / "index.json").read_text())
    blob = lambda digest: json.loads((LAYOUT / "blobs" / "sha256" / digest.split(":")[1]).read_text())
    return set(blob(blob(index["manifests"][0]["digest"])["config"]["digest"])["config"].get("Volumes", {}))


def run(arguments):
    env, image, rest = [], None, []
    it = iter(arguments)
    for argument in it:
        if image is not None:
            rest.append(argument)
        elif argument in ("--detach", "-d"):
            continue
        elif argument in ("--publish", "-p"):
            if not next(it).endswith(":8443"):
                fail("the shim publishes 8443 only")
        elif argument in ("--env", "-e"):
            env.append(next(it))
        else:
            image = argument
    image_inspect(image)
    name = uuid.uuid4().hex[:12]
    bundle = STATE / name
    STATE.mkdir(parents=True, exist_ok=True)
    subprocess.run(["umoci", "unpack", "--image", f"{LAYOUT}:latest", str(bundle)], check=True, capture_output=True)
    port = free_port()
    config = json.loads((bundle / "config.json").read_text())
    config["process"]["terminal"] = False
    config["process"]["args"] = ["/fakeentra", *rest]
    config["process"]["env"] += env + [f"FAKEENTRA_PORT={port}"]
    config["linux"]["namespaces"] = [n for n in config["linux"]["namespaces"] if n["type"] != "network"]
    # umoci turns the image's volumes into root-owned tmpfs mounts; docker gives a new volume the image
    # folder's content and owner (65532 here). The folders themselves, in the writable rootfs, behave so.
    volumes = image_volumes()
    config["mounts"] = [m for m in config["mounts"] if m["destination"] not in volumes]
    (bundle / "config.json").write_text(json.dumps(config))
    (bundle / "published").write_text(f"127.0.0.1:{port}\n")
    log = open(bundle / "container.log", "w")
    subprocess.run(["runc", "run", "--detach", "--bundle", str(bundle), name], check=True, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    print(name)


def main(arguments):
    match arguments:
        case ["image", "inspect", image]:
            image_inspect(image)
        case ["run", *rest]:
            run(rest)
        case ["port", name, "8443/tcp"]:
            print((STATE / name / "published").read_text(), end="")
        case ["exec", name, *command]:
            sys.exit(subprocess.run(["runc", "exec", name, *command]).returncode)
        case ["cp", source, destination] if ":" in source:
            name, path = source.split(":", 1)
            shutil.copyfile(STATE / name / "rootfs" / path.lstrip("/"), destination)
        case ["logs", name]:
            print((STATE / name / "container.log").read_text(), end="")
        case ["rm", "--force", name]:
            subprocess.run(["runc", "kill", name, "TERM"], capture_output=True)
            subprocess.run(["runc", "delete", "--force", name], capture_output=True)
            shutil.rmtree(STATE / name, ignore_errors=True)
        case _:
            fail(f"docker shim: not a command the plugin uses: {arguments}")


if __name__ == "__main__":
    main(sys.argv[1:])
