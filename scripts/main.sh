#!/usr/bin/env bash
# The main job on the bundled example: check the built-in domain, library and example
# templates, draw the example apartment's map and a simulated day in it, and compile the
# apartment with the built-in library into a task suite (out/suite.jsonl + manifest; at
# most 5 tasks a template, so that the first compile takes well under a minute: drop
# `--max-per-template` for every binding, about 1,300 tasks and three CPU-minutes), and
# write a site to browse it (out/site/index.html, opened from disk).
source "$(dirname "$0")/env.sh"
fdc check domain examples/templates
fdc scene inspect examples/scenes/apartment.json
mkdir -p out
fdc scene render examples/scenes/apartment.json -o out/apartment-map.png --graph out/apartment-support.svg
echo "wrote out/apartment-map.png and out/apartment-support.svg"
fdc experience generate examples/scenes/apartment.json --interactions 5 --seed 0 -o out/apartment-experience.json
fdc experience render out/apartment-experience.json -o out/apartment-experience.png
fdc compile examples/scenes/apartment.json --history out/apartment-experience.json --seed 0 \
    --max-per-template 5 -o out/suite.jsonl
fdc browse out/suite.jsonl -o out/site
