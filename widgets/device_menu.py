"""The device menu (SPEC 11): every OpenCL device with its health, the default first.

Devices are probed by the core (``workbench.device.opencl``); the menu only shows the
answers: ``ok``, or ``broken`` with the reason, so a user sees why a device is not used.
Choosing a broken device is allowed (the runs then say why they fail) but the menu says
what is wrong with it right away. When the default is the CPU while a GPU works, the menu
says so under the default's entry.
"""

from __future__ import annotations

import html

import ipywidgets as w

from workbench.device import opencl as opencl_devices

DEFAULT = "default"  # the menu's value for "the default device"


def _label(info) -> str:
    kind = f", {info.kind}" if info.kind != "cpu" else ""
    health = "ok" if info.ok else info.health
    return f"{info.id} {info.name}{kind} — {health}"


class DeviceMenu(w.VBox):
    """A dropdown of the devices; ``value`` is the chosen device id (None: the default)."""

    def __init__(self, device: str | None = None):
        self.found = opencl_devices.devices()
        try:
            default = opencl_devices.default_device()
            default_text = f"default: {_label(default)}"
            self.problem = ""
        except opencl_devices.DeviceError as err:
            default, default_text = None, "default: no working device"
            self.problem = str(err)
        gpu = opencl_devices.idle_gpu(self.found, default)
        self.hint = opencl_devices.idle_gpu_hint(gpu, how="this menu") if gpu else ""
        # the default's entry has a value of its own: ipywidgets reads a value of None as
        # "nothing chosen" and shows an empty menu
        options = [(default_text, DEFAULT)] + [(_label(d), d.id) for d in self.found]
        chosen = device if device in {d.id for d in self.found} else DEFAULT
        self.menu = w.Dropdown(options=options, value=chosen, description="device",
                               layout=w.Layout(width="560px"))
        self.menu.add_class("wb-device-menu")
        self.note = w.HTML("")
        self.note.add_class("wb-device-note")
        self.menu.observe(lambda _change: self._show(), "value")
        super().__init__([self.menu, self.note])
        # a device given as a kind or part of a name ("gpu"), not as an entry's id
        self._unmatched = device if device is not None and chosen == DEFAULT else None
        self._show()

    @property
    def value(self) -> str | None:
        if self._unmatched is not None:
            return self._unmatched
        return None if self.menu.value == DEFAULT else self.menu.value

    def observe_choice(self, callback) -> None:
        """Call ``callback(device_id_or_None)`` when the user picks another device."""
        def changed(_change):
            self._unmatched = None
            callback(self.value)
        self.menu.observe(changed, "value")

    def _show(self) -> None:
        chosen = next((d for d in self.found if d.id == self.menu.value), None)
        if self.menu.value == DEFAULT and self.problem:
            text = self.problem
        elif self.menu.value == DEFAULT and self.hint and self._unmatched is None:
            self.note.value = (f'<div style="color:#555;margin:2px 0">'
                               f"{html.escape(self.hint)}</div>")
            return
        elif chosen is not None and not chosen.ok:
            text = f"{chosen.describe()} is {chosen.health}: runs on it will fail"
        elif self._unmatched is not None:
            text = f"device {self._unmatched!r} (as given)"
        else:
            self.note.value = ""
            return
        self.note.value = (f'<pre style="white-space:pre-wrap;color:#a33;margin:2px 0">'
                           f"{html.escape(text)}</pre>")


class SeveralDevices(w.VBox):
    """Where more than one device works: a choice to run on several of them at once
    (``workbench.run(..., devices=[...])``), and which. ``value`` is the chosen ids (two at
    least), or None for a run on one device (not chosen, or fewer than two devices work)."""

    def __init__(self, found=None):
        found = opencl_devices.devices() if found is None else found
        self.working = [d for d in found if d.ok]
        self.available = len(self.working) >= 2
        # a simulator (Oclgrind) works but is slow: the real devices are chosen first
        ranked = sorted(self.working, key=lambda d: d.kind == "simulator")
        self.enabled = w.Checkbox(value=False, description="run on several devices",
                                  indent=False)
        self.enabled.add_class("wb-several-devices")
        self.choice = w.SelectMultiple(options=[(_label(d), d.id) for d in self.working],
                                       value=[d.id for d in ranked[:2]], rows=min(4, len(
                                           self.working) or 1), description="devices",
                                       layout=w.Layout(width="560px", display="none"))
        self.choice.add_class("wb-several-devices-choice")
        self.note = w.HTML("")
        self.enabled.observe(lambda _c: self._show(), "value")
        self.choice.observe(lambda _c: self._show(), "value")
        super().__init__([self.enabled, self.choice, self.note])
        if not self.available:
            self.layout.display = "none"

    @property
    def value(self) -> list[str] | None:
        if not self.available or not self.enabled.value or len(self.choice.value) < 2:
            return None
        return list(self.choice.value)

    def observe_choice(self, callback) -> None:
        """Call ``callback(ids_or_None)`` when the choice changes."""
        self.enabled.observe(lambda _c: callback(self.value), "value")
        self.choice.observe(lambda _c: callback(self.value), "value")

    def _show(self) -> None:
        self.choice.layout.display = "" if self.enabled.value else "none"
        few = self.enabled.value and len(self.choice.value) < 2
        self.note.value = ('<div style="color:#a33;margin:2px 0">choose two devices at least '
                           "(one runs as without this choice)</div>" if few else "")
