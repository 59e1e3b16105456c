#!/usr/bin/env bash
# The main job on the bundled example: check the built-in domain and the example
# templates, then build the example apartment's scene graph and draw its map.
source "$(dirname "$0")/env.sh"
fdc check domain examples/templates
fdc scene inspect examples/scenes/apartment.json
mkdir -p out
fdc scene render examples/scenes/apartment.json -o out/apartment-map.png --graph out/apartment-support.svg
echo "wrote out/apartment-map.png and out/apartment-support.svg"
