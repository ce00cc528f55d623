"""Engine-side build-machine checks that CI can make without an engine: UE module flags, the
harness built the way Unreal builds the core, the committed instancing material, and the
protocol lines both cores print parsing in the runner."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from engine_runners.protocol import parse_line
from tests.support.toolchains import require_cpp_harness, require_csharp_harness

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "ue5_plugin" / "GcvBridge" / "Source"
UNITY = REPO / "unity_project"


def _build_cs(module: str) -> str:
    return (SOURCE / module / f"{module}.Build.cs").read_text(encoding="utf-8")


CORE_INCLUDES = ('#include "Gcv/', '#include "GcvUnreal.h"', '#include "GcvRunSubsystem.h"')


def _compiles_core_headers(module: str) -> bool:
    """Does a translation unit of the module include the core (directly or through the glue)?"""
    return any(inc in p.read_text(encoding="utf-8") for p in (SOURCE / module).rglob("*.cpp")
               for inc in CORE_INCLUDES)


@pytest.mark.parametrize("module", ["GcvSimCore", "GcvBridge", "GcvBridgeEditor"])
def test_ue_modules_build_without_exceptions_or_rtti(module: str) -> None:
    text = _build_cs(module)
    assert re.search(r"bEnableExceptions\s*=\s*false", text), module
    assert re.search(r"bUseRTTI\s*=\s*false", text), module
    assert '"UnrealEd"' not in text, f"{module} depends on UnrealEd without using it"
    no_pch = re.search(r"PCHUsage\s*=\s*PCHUsageMode\.NoPCHs", text) is not None
    precise = "FPSemanticsMode.Precise" in text
    # NoPCHs only where the core's headers are compiled with precise floating point
    assert no_pch == precise == _compiles_core_headers(module), module


def test_editor_module_needs_no_unrealed_headers() -> None:
    for path in (SOURCE / "GcvBridgeEditor").rglob("*.*"):
        if path.suffix in (".h", ".cpp"):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r'#include "(Editor|UnrealEd|Editor/)', text), path.name


def test_harness_is_built_like_unreal_builds_the_core() -> None:
    script = (REPO / "ue5_plugin" / "harness" / "build.sh").read_text(encoding="utf-8")
    assert "-fno-exceptions" in script and "-fno-rtti" in script
    main = (REPO / "ue5_plugin" / "harness" / "main.cpp").read_text(encoding="utf-8")
    code = re.sub(r"//[^\n]*", "", main)
    assert not re.search(r"\b(try|catch|throw|typeid|dynamic_cast)\b", code)


@pytest.mark.toolchain
def test_cpp_harness_self_test_covers_capture_pacing_and_protocol_lines() -> None:
    exe = require_cpp_harness()
    proc = subprocess.run([str(exe), "-GcvSelfTest"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "all checks passed" in proc.stdout, proc.stderr


@pytest.mark.toolchain
def test_csharp_harness_self_test_covers_frame_filter_and_protocol_lines() -> None:
    exe = require_csharp_harness()
    proc = subprocess.run(["mono", str(exe), "-gcvSelfTest"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "all checks passed" in proc.stdout, proc.stderr


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", ["cpp", "csharp"])
def test_error_lines_of_both_cores_parse_in_the_runner(kind: str, tmp_path: Path) -> None:
    from tests.support.simutil import VECTORS, load_vector

    request = dict(load_vector(VECTORS[0])["request"], output_dir=str(tmp_path))
    request["program_hash"] = "0" * 64
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    if kind == "cpp":
        cmd = [str(require_cpp_harness()), f"-GcvRequest={path}"]
    else:
        cmd = ["mono", str(require_csharp_harness()), "-gcvRequest", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    parsed = [parse_line(line) for line in proc.stdout.splitlines()]
    errors = [p[1] for p in parsed if p and p[0] == "error"]
    assert errors and errors[0]["kind"] == "hash_mismatch" and errors[0]["exit_code"] == 3
    assert "program_hash" in errors[0]["message"]


def test_instancing_material_keeps_the_variant_in_player_builds() -> None:
    resources = UNITY / "Assets" / "Gcv" / "Runtime" / "Resources"
    material = (resources / "GcvInstancedUnlitMaterial.mat").read_text(encoding="utf-8")
    shader_guid = hashlib.md5(b"Assets/Gcv/Runtime/Resources/GcvInstancedUnlit.shader").hexdigest()
    meta = (resources / "GcvInstancedUnlit.shader.meta").read_text(encoding="utf-8")
    assert f"guid: {shader_guid}" in meta
    assert f"m_Shader: {{fileID: 4800000, guid: {shader_guid}, type: 3}}" in material
    assert "m_EnableInstancingVariants: 1" in material
    view = (UNITY / "Assets" / "Gcv" / "Runtime" / "GcvView.cs").read_text(encoding="utf-8")
    assert 'MaterialResource = "GcvInstancedUnlitMaterial"' in view
    tests = (UNITY / "Assets" / "Gcv" / "Tests" / "BuildMachineTests.cs").read_text(encoding="utf-8")
    assert "InstancingVariantIsKeptInPlayerBuilds" in tests


def test_unity_player_excludes_capture_frames_from_measured_times() -> None:
    runner = (UNITY / "Assets" / "Gcv" / "Runtime" / "GcvRunner.cs").read_text(encoding="utf-8")
    assert "frames.Captured()" in runner and "MeasuredFrames.FromFrameTimesMs(frames.Kept)" in runner
    subsystem = (SOURCE / "GcvBridge" / "Private" / "GcvRunSubsystem.cpp").read_text(encoding="utf-8")
    assert "Pacer.MayStep()" in subsystem and "Pacer.Kept()" in subsystem
