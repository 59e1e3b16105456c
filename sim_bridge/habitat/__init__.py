"""fdc's Habitat bridge: import Habitat scene datasets (configs, scene instances, URDFs,
receptacles, semantic regions) into fdc's scene format, without habitat-sim
(`importer`); read a running simulator as a `WorldState` (`live`, needs habitat-sim,
imported lazily); write suites as RearrangeDataset-v0 episodes (`episodes`) and as
habitat-lab's multi-task PDDL (`pddl_yaml`)."""

from fdc.sim_bridge.habitat.importer import ImportResult, import_habitat
from fdc.sim_bridge.habitat.live import HabitatNames, HabitatWorldState

__all__ = ["HabitatNames", "HabitatWorldState", "ImportResult", "import_habitat"]
