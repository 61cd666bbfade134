"""Settings: one validated model, read once from the environment and a `.env` file.

The model and its defaults are engine.config.settings; finding the `.env` file, reading it under
the environment and naming what is wrong with a value are engine.config.loading.
"""

from engine.config.loading import (
    ENV_FILE_VARIABLE,
    find_env_file,
    load_settings,
    loaded_env_file,
    settings_from_mapping,
)
from engine.config.settings import (
    DEFAULT_ONLINE_MODEL,
    OFFLINE_MODEL,
    ROLES,
    SAMPLE_CORPUS,
    GroundingMode,
    ResearchMode,
    Role,
    RoleModel,
    SearchProvider,
    Settings,
    SettingsError,
    StructuredOutputSetting,
    ToolCallingSetting,
)

__all__ = [
    "DEFAULT_ONLINE_MODEL",
    "ENV_FILE_VARIABLE",
    "OFFLINE_MODEL",
    "ROLES",
    "SAMPLE_CORPUS",
    "GroundingMode",
    "ResearchMode",
    "Role",
    "RoleModel",
    "SearchProvider",
    "Settings",
    "SettingsError",
    "StructuredOutputSetting",
    "ToolCallingSetting",
    "find_env_file",
    "load_settings",
    "loaded_env_file",
    "settings_from_mapping",
]
