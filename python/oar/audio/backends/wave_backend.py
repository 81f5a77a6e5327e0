"""PCM WAV files through Python's `wave` module: oar.audio's load, save and info.

Samples are 16-bit PCM (what `wave` writes, and what Paddle's wave backend reads);
8- and 32-bit PCM files are read too. Loaded waveforms are float32 in [-1, 1) (or the
raw integer values with normalize=False).
"""

from __future__ import annotations

import os
import wave
from typing import IO

import numpy as np
from ...framework.check import is_int
from ... import _C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor


__all__ = ["AudioInfo", "info", "load", "save"]


class AudioInfo:
    """What info() reports about an audio file.

    Args:
        sample_rate (int): samples per second.
        num_frames (int): samples per channel.
        num_channels (int): channels.
        bits_per_sample (int): bits of one sample.
        encoding (str): "PCM_S" (signed) or "PCM_U" (unsigned, 8-bit).

    Examples:
        >>> from oar.audio.backends.wave_backend import AudioInfo
        >>> print(AudioInfo(16000, 8000, 1, 16, "PCM_S").num_frames)
        8000
    """

    def __init__(self, sample_rate, num_frames, num_channels, bits_per_sample, encoding):
        self.sample_rate = sample_rate
        self.num_frames = num_frames
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    def __repr__(self):
        return (
            f"AudioInfo(sample_rate={self.sample_rate}, num_frames={self.num_frames}, "
            f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
            f"encoding={self.encoding})"
        )


def _open(api, filepath):
    if not hasattr(filepath, "read") and not isinstance(filepath, (str, os.PathLike)):
        raise TypeError(
            f"{api}(): argument 'filepath' must be a path or a binary file, but "
            f"got {type(filepath).__name__}"
        )
    try:
        return wave.open(filepath if hasattr(filepath, "read") else os.fspath(filepath), "rb")
    except wave.Error as e:
        raise NotImplementedError(
            f"{api}(): {filepath!r} is not a PCM WAV file the wave backend reads ({e})"
        ) from None
    except EOFError:
        raise NotImplementedError(
            f"{api}(): {filepath!r} is not a PCM WAV file the wave backend reads (it ends early)"
        ) from None


def info(filepath: str | os.PathLike[str] | IO[bytes]) -> AudioInfo:
    """The sample rate, length, channels and sample size of a WAV file.

    Args:
        filepath (str|Path|file): the WAV file.

    Returns:
        AudioInfo: sample_rate, num_frames, num_channels, bits_per_sample, encoding.

    Examples:
        >>> import oar, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "a.wav")
        >>> oar.audio.save(path, oar.zeros([1, 160]), 16000)
        >>> print(oar.audio.info(path).num_frames)
        160
    """
    with _open("info", filepath) as f:
        width = f.getsampwidth()
        return AudioInfo(
            f.getframerate(),
            f.getnframes(),
            f.getnchannels(),
            width * 8,
            "PCM_U" if width == 1 else "PCM_S",
        )


def _samples(api, raw, width):
    if width == 1:
        return np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0, 128.0
    if width == 2:
        return np.frombuffer(raw, dtype="<i2").astype(np.float32), 32768.0
    if width == 4:
        return np.frombuffer(raw, dtype="<i4").astype(np.float64), 2147483648.0
    raise NotImplementedError(
        f"{api}(): {8 * width}-bit WAV samples are not supported (8, 16 and 32-bit PCM are)"
    )


def load(
    filepath: str | os.PathLike[str] | IO[bytes],
    frame_offset: int = 0,
    num_frames: int = -1,
    normalize: bool = True,
    channels_first: bool = True,
) -> tuple[Tensor, int]:
    """Reads a WAV file: (waveform, sample_rate).

    Args:
        filepath (str|Path|file): the WAV file.
        frame_offset (int, optional): the first sample to read. Default: 0.
        num_frames (int, optional): how many samples per channel; -1 reads to the end.
            Default: -1.
        normalize (bool, optional): scale to [-1, 1) (float32); False keeps the integer
            values (as float32). Default: True.
        channels_first (bool, optional): [channels, time] (True) or [time, channels].

    Returns:
        tuple: (Tensor, int): the float32 waveform and the sample rate.

    Examples:
        >>> import oar, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "a.wav")
        >>> oar.audio.save(path, oar.full([1, 4], 0.5), 8000)
        >>> wav, sr = oar.audio.load(path)
        >>> print(wav.numpy().tolist(), sr)
        [[0.5, 0.5, 0.5, 0.5]] 8000
    """
    api = "load"
    for name, v in (("frame_offset", frame_offset), ("num_frames", num_frames)):
        if not is_int(v):
            raise TypeError(f"{api}(): argument '{name}' must be an int, but got {v!r}")
    if frame_offset < 0:
        raise ValueError(f"{api}(): argument 'frame_offset' must be >= 0, but got {frame_offset}")
    if num_frames < -1:
        raise ValueError(f"{api}(): argument 'num_frames' must be >= 0 or -1, but got {num_frames}")
    with _open(api, filepath) as f:
        channels, sr, width, total = (
            f.getnchannels(),
            f.getframerate(),
            f.getsampwidth(),
            f.getnframes(),
        )
        start = min(frame_offset, total)
        f.setpos(start)
        count = total - start if num_frames == -1 else min(num_frames, total - start)
        raw = f.readframes(count)
    data, full_scale = _samples(api, raw, width)
    if normalize:
        data = data / full_scale
    wav = np.ascontiguousarray(data.astype(np.float32).reshape(-1, channels))
    if channels_first:
        wav = np.ascontiguousarray(wav.T)
    return to_tensor(wav), sr


def save(
    filepath: str | os.PathLike[str],
    src: Tensor,
    sample_rate: int,
    channels_first: bool = True,
    encoding: str | None = None,
    bits_per_sample: int | None = 16,
) -> None:
    """Writes a waveform to a 16-bit PCM WAV file.

    Args:
        filepath (str|Path): the file to write.
        src (Tensor): 2-D, [channels, time] (or [time, channels] with channels_first=False).
            Floating samples are in [-1, 1] (clipped beyond); integer ones are 16-bit values.
        sample_rate (int): samples per second.
        channels_first (bool, optional): src's layout. Default: True.
        encoding (str, optional): None or "PCM_S" (the only encoding written).
        bits_per_sample (int, optional): None or 16 (the only size written).

    Examples:
        >>> import oar, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "a.wav")
        >>> oar.audio.save(path, oar.zeros([2, 100]), 16000)
        >>> print(oar.audio.info(path).num_channels)
        2
    """
    api = "save"
    if not isinstance(src, _C.Tensor):
        raise TypeError(f"{api}(): argument 'src' must be a Tensor, but got {type(src).__name__}")
    if src.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'src' must be 2-D (channels, time), but has shape {src.shape}"
        )
    if bits_per_sample not in (None, 16):
        raise ValueError(
            f"{api}(): argument 'bits_per_sample' must be 16 (or None), but got {bits_per_sample!r}"
        )
    if encoding not in (None, "PCM_S"):
        raise ValueError(
            f"{api}(): argument 'encoding' must be 'PCM_S' (or None), but got {encoding!r}"
        )
    if not is_int(sample_rate) or sample_rate <= 0:
        raise ValueError(
            f"{api}(): argument 'sample_rate' must be a positive int, but got {sample_rate!r}"
        )
    a = src.numpy()
    if np.iscomplexobj(a):
        raise TypeError(f"{api}(): argument 'src' must be real, but is {src.dtype.name}")
    if channels_first:
        a = a.T
    if np.issubdtype(a.dtype, np.floating):
        a = np.clip(np.round(a.astype(np.float64) * 32768.0), -32768, 32767)
    pcm = np.ascontiguousarray(a.astype("<i2"))
    with wave.open(os.fspath(filepath), "wb") as f:
        f.setnchannels(pcm.shape[1])
        f.setsampwidth(2)
        f.setframerate(sample_rate)
        f.writeframes(pcm.tobytes())
