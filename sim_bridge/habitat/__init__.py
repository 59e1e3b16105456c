"""fdc's Habitat bridge: import Habitat scene datasets (configs, scene instances, URDFs,
receptacles, semantic regions) into fdc's scene format, without habitat-sim
(`importer`, with the conversions between Habitat's Y-up frame and fdc's Z-up one); read
a running simulator as a `WorldState` (`live`, needs habitat-sim, imported lazily).
Writing suites as Habitat episodes and PDDL is interop's (`fdc.interop.habitat`).
See docs/habitat.md."""

from fdc.sim_bridge.habitat.importer import ImportResult, import_habitat
from fdc.sim_bridge.habitat.live import HabitatNames, HabitatWorldState

__all__ = ["HabitatNames", "HabitatWorldState", "ImportResult", "import_habitat"]
