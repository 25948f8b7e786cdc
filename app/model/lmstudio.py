"""What LM Studio says of a model beside its OpenAI endpoint (``GET /api/v1/models``).

Why: LM Studio's ``/v1/models`` lists names only, so a session took the catalogue's window
(or assumed 8,192 tokens) while LM Studio runs a model with the context it was loaded with
(often 4,096) and, as its context-overflow policy says, cuts what does not fit or stops;
and ``--protocol auto`` taught the text protocol to a model LM Studio says was trained for
tool use. Its native REST API lists each model with ``capabilities.trained_for_tool_use``
and, for each loaded instance, the ``context_length`` it runs with. Anything else (not LM
Studio, a model not loaded, an error) says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PATH = "api/v1/models"
"""LM Studio's own model listing, at the server's root (0.4 on)."""
SOURCE = "GET /api/v1/models loaded context_length: what LM Studio runs it with"


def _entry(listing: object, model: str) -> Mapping[str, Any] | None:
    """The listed model named ``model``: by its ``key``, a variant or a loaded instance."""
    models = listing.get("models") if isinstance(listing, Mapping) else None
    if not isinstance(models, list) or not model:
        return None
    for entry in models:
        if not isinstance(entry, Mapping):
            continue
        names = {entry.get("key"), entry.get("selected_variant"), *_instance_ids(entry)}
        variants = entry.get("variants")
        if isinstance(variants, list):
            names.update(v for v in variants if isinstance(v, str))
        if model in names:
            return entry
    return None


def _instances(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    loaded = entry.get("loaded_instances")
    return [i for i in loaded if isinstance(i, Mapping)] if isinstance(loaded, list) else []


def _instance_ids(entry: Mapping[str, Any]) -> set[object]:
    return {i.get("id") for i in _instances(entry)}


def lmstudio_tools(listing: object, model: str) -> bool | None:
    """Whether LM Studio says ``model`` was trained for tool use."""
    entry = _entry(listing, model)
    caps = entry.get("capabilities") if entry is not None else None
    said = caps.get("trained_for_tool_use") if isinstance(caps, Mapping) else None
    return said if isinstance(said, bool) else None


def lmstudio_window(listing: object, model: str) -> int | None:
    """The ``context_length`` LM Studio runs ``model`` with (the instance of that name,
    else the model's first), or ``None`` when it is not loaded: it is then loaded with its
    own settings, which the listing does not say."""
    entry = _entry(listing, model)
    if entry is None:
        return None
    instances = _instances(entry)
    named = [i for i in instances if i.get("id") == model] or instances
    for instance in named:
        config = instance.get("config")
        tokens = config.get("context_length") if isinstance(config, Mapping) else None
        if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
            return tokens
    return None


__all__ = ["PATH", "SOURCE", "lmstudio_tools", "lmstudio_window"]
