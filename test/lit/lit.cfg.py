# lit configuration of Kiln's IR and tool tests.
import os
import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_bin_dir, "..", "test", "lit-out")

config.environment["PATH"] = os.pathsep.join(
    [config.kiln_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# The suite's object cache (test/CMakeLists.txt), shared with ctest's tests.
config.environment["KILN_CACHE_DIR"] = config.kiln_object_cache
config.substitutions.append(("%cc", config.kiln_cc))
config.substitutions.append(("%nm", config.kiln_nm))
# Writes ONNX models for the tests (text form, or crafted broken files).
config.substitutions.append(
    ("%onnx-model", config.kiln_onnx_python + " " +
     os.path.join(config.test_source_root, "Inputs", "onnx_model.py")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%python", config.kiln_onnx_python))
# The source tree (examples/bench's harnesses, scripts/).
config.substitutions.append(
    ("%root", os.path.normpath(os.path.join(config.test_source_root, "..", ".."))))
# llama.cpp's tokenizer test vocabularies, unpacked (test/tokenizer/vocab/).
config.substitutions.append(("%vocab", config.kiln_vocab_dir))
# The shipped trained model and its held-out sample (models/README.md).
config.substitutions.append(
    ("%models", os.path.join(config.test_source_root, "..", "..", "models")))
