#!/bin/sh
# The FakeEntra dev container feature: the binary on the PATH, its certificate folder made for the
# container's user, and its CA added to the system's trust store. The devcontainer CLI runs this as root
# while it builds the image, with the options as upper-case variables (BINARYURL, HOSTNAMES) and the
# user who will work in the container as _REMOTE_USER. The CA is name-constrained to the names it is made
# for; `fakeentra serve` issues its certificate under it for the names it is given (FAKEENTRA_HOSTNAMES).
set -eu

CERTS=/usr/local/share/fakeentra
BINARYURL="${BINARYURL:-}"
HOSTNAMES="${HOSTNAMES:-}"

fail() {
    echo "fakeentra feature: $*" >&2
    exit 1
}

# Debian, Ubuntu (apt), Alpine (apk) or Fedora-likes (dnf): what the feature needs that the base may lack.
install_packages() {
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    elif command -v apk >/dev/null 2>&1; then
        apk add --no-cache "$@" >/dev/null
    elif command -v dnf >/dev/null 2>&1; then
        dnf install -y -q "$@" >/dev/null
    else
        fail "cannot install $*: no apt-get, apk or dnf in this image"
    fi
}

fetch() {
    case "$1" in
        file://*) cp "${1#file://}" "$2" ;;
        http://* | https://*)
            if ! command -v curl >/dev/null 2>&1 && ! command -v wget >/dev/null 2>&1; then install_packages curl ca-certificates; fi
            if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 3 -o "$2" "$1"; else wget -q -O "$2" "$1"; fi ;;
        *) fail "binaryUrl \"$1\" is not an https://, http:// or file:// URL" ;;
    esac
}

if [ -n "$BINARYURL" ]; then
    work=$(mktemp -d)
    fetch "$BINARYURL" "$work/download" || fail "could not download $BINARYURL"
    if tar -tzf "$work/download" >/dev/null 2>&1; then
        tar -xzf "$work/download" -C "$work"
        found=$(find "$work" -type f -name fakeentra | head -n 1)
        [ -n "$found" ] || fail "$BINARYURL holds no file named fakeentra"
    else
        found="$work/download"
    fi
    install -m 0755 "$found" /usr/local/bin/fakeentra
    rm -rf "$work"
elif ! command -v fakeentra >/dev/null 2>&1; then
    fail "fakeentra is not on the PATH: give the feature's binaryUrl option (the static Linux build of scripts/build-release)"
fi
fakeentra --version >/dev/null 2>&1 || fail "$(command -v fakeentra) does not run here: it must be the static Linux build for $(uname -m)"

# The CA and a first server certificate, made once in the image, for the container's user to serve with.
set --
old_ifs=$IFS
IFS=,
for name in $HOSTNAMES; do
    name=$(echo "$name" | tr -d ' ')
    [ -n "$name" ] && set -- "$@" --hostname "$name"
done
IFS=$old_ifs
mkdir -p "$CERTS"
fakeentra certs --certs "$CERTS" "$@" >/dev/null
user="${_REMOTE_USER:-root}"
if [ "$user" != root ] && id "$user" >/dev/null 2>&1; then chown -R "$user" "$CERTS"; fi

# Trusted by everything that reads the system's store; Node reads NODE_EXTRA_CA_CERTS (containerEnv).
if [ -d /etc/pki/ca-trust/source/anchors ] && command -v update-ca-trust >/dev/null 2>&1; then
    cp "$CERTS/ca.pem" /etc/pki/ca-trust/source/anchors/fakeentra-ca.crt
    update-ca-trust
else
    command -v update-ca-certificates >/dev/null 2>&1 || install_packages ca-certificates
    mkdir -p /usr/local/share/ca-certificates
    cp "$CERTS/ca.pem" /usr/local/share/ca-certificates/fakeentra-ca.crt
    update-ca-certificates >/dev/null
fi
echo "fakeentra feature: $(fakeentra --version) in /usr/local/bin, certificates in $CERTS, CA trusted"
