"""Import Habitat scene datasets (configs, scene instances, URDFs, receptacles, semantic
regions) into fdc's scene format, without habitat-sim."""

from .importer import ImportResult, import_habitat

__all__ = ["ImportResult", "import_habitat"]
