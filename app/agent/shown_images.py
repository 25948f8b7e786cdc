"""Images a tool found (``read`` of a picture), shown to the model after the round's results.

The APIs take images on the user's side only (a Chat Completions tool message holds text),
so a round's images follow its results as one user-side item (origin ``tool``), which every
wire sends in the user message that carries the results, after them: Anthropic's
``tool_result`` blocks then ``image`` blocks, a Responses ``function_call_output`` then an
``input_image``, Chat Completions' ``tool`` messages then a user message with
``image_url`` parts. The item names each image and the call that read it, so a model that
read several knows which is which, and a stored session keeps it as any message's image.

Not shown, and said so in the item: past :data:`ROUND_MAX` images in one round (each is up
to 5 MB in every later request), and once the server has refused an image (the model takes
no images), the item names them without the pictures.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.events import ToolResult
from frontier.app.image import IMAGES_SHOWN, Image
from frontier.app.model.conversation import UserText, image_note

ROUND_MAX = IMAGES_SHOWN
"""Images shown from one round's results (a person's message takes as many)."""
NO_IMAGES = "not shown: the model takes no images (its server refused one)"


def shown_images(results: Sequence[ToolResult], *, takes_images: bool) -> UserText | None:
    """The item showing the images ``results`` carry, or ``None`` when they carry none."""
    shown: list[str] = []
    images: list[Image] = []
    for result in results:
        for image in result.images:
            said = f"{image_note(image)} read by call {result.call_id}"
            if not takes_images:
                said += f": {NO_IMAGES}"
            elif len(images) >= ROUND_MAX:
                said += f": not shown, at most {ROUND_MAX} images a round; read it again later"
            else:
                images.append(image)
            shown.append(said)
    if not shown:
        return None
    return UserText("\n".join(shown), "tool", tuple(images))


def has_tool_images(items: Sequence[object]) -> bool:
    """Whether the history shows the model an image a tool read."""
    return any(isinstance(i, UserText) and i.origin == "tool" and i.images for i in items)


__all__ = ["NO_IMAGES", "ROUND_MAX", "has_tool_images", "shown_images"]
