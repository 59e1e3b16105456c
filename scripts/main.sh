#!/usr/bin/env bash
# The main job: check fdc's built-in library and the example templates.
source "$(dirname "$0")/env.sh"
fdc check domain examples/templates
