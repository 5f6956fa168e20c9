# lit configuration of the hostile-input table (docs/security.md): the same
# tools and substitutions as tests/lit, rooted here.
import os

lit_config.load_config(config, os.path.join(config.systole_src_root, "tests", "lit", "lit.cfg.py"))
config.name = "Systole-hostile"
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.systole_obj_root, "tests", "hostile")
