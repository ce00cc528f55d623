#!/bin/sh
# A stand-in engine executable for runner tests: behaves as GCV_FAKE_MODE says.
exec "${GCV_FAKE_PYTHON:-python3}" "$(dirname "$0")/fake_engine.py" "${GCV_FAKE_MODE:-ok}" "$@"
