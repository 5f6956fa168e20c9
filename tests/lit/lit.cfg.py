# lit configuration for Systole: pass tests (systole-opt | FileCheck), CLI
# tests (systole asm/objdump/compile/run) and their -errors twins.
import os
import lit.formats

config.name = "Systole"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".s", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.systole_obj_root, "tests", "lit")

# Built tools first, then LLVM's FileCheck/not/split-file.
config.environment["PATH"] = os.pathsep.join(
    [config.systole_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%presets", os.path.join(config.systole_src_root, "isa", "presets")))
config.substitutions.append(("%models", os.path.join(config.systole_src_root, "models")))
config.substitutions.append(("%cache", os.path.join(config.systole_obj_root, "cache")))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%src", config.systole_src_root))
