"""The header: the screen's top line."""

from __future__ import annotations

from gleek_p2p.base.i18n import _
from gleek_p2p.rules import to_act, variant_name

from .scene import Fragments, Scene, clip, phase_words


def header(scene: Scene, width: int) -> Fragments:
    """The top line: hand number, variant, phase and whose turn it is."""
    s = scene.state
    parts = [scene.title]
    if s is not None:
        if s.hand_no >= 0:
            parts.append(_("hand {number}/{hands}").format(number=s.hand_no + 1,
                                                           hands=s.session_hands))
        parts.append(variant_name(s.variant))
        parts.append(phase_words(s))
        actor = to_act(s)
        if actor is not None:
            if actor == scene.viewer and scene.chooser is not None:
                parts.append(_("YOUR TURN"))
            else:
                parts.append(_("{name} to act").format(name=scene.who(actor)))
    text = " " + " · ".join(parts)
    return clip([("class:header", text.ljust(width))], width)
