"""Robot descriptions as users have them -> URDF XML text.

One way in for every entry point (CLI, nodes, launch files): a path to a ``.urdf`` or
``.xacro`` file, or the XML text itself. Xacro (a ``.xacro`` file, or any text using the
xacro namespace or ``<xacro:`` tags) is expanded with the ``xacro`` package, with
``name:=value`` mappings for its ``xacro:arg``s, exactly as ``xacro file.xacro name:=value``
would. No ROS imports (``$(find pkg)`` inside a xacro needs the ament index, as in ROS).
"""

from collections.abc import Sequence
import contextlib
import io
import os
import xml.parsers.expat

from ..errors import InputError, UrdfError

__all__ = ['Mappings', 'read_description', 'expand_xacro', 'is_xacro', 'parse_mappings']

#: xacro arguments: {name: value} or ['name:=value', ...].
Mappings = dict[str, str] | Sequence[str]

XACRO_NS = 'http://www.ros.org/wiki/xacro'


def parse_mappings(items: Mappings | None) -> dict[str, str]:
    """``['name:=value', ...]`` (or a dict) -> {name: value}; InputError naming a bad item."""
    if isinstance(items, dict):
        return {str(k): str(v) for k, v in items.items()}
    out = {}
    for item in items or ():
        name, sep, value = str(item).partition(':=')
        if not sep or not name.strip():
            raise InputError(f'xacro argument {item!r}: expected name:=value')
        out[name.strip()] = value
    return out


def is_xacro(text: str) -> bool:
    """True when XML text uses xacro (its namespace or a ``<xacro:`` tag)."""
    return XACRO_NS in text or '<xacro:' in text


def expand_xacro(source: str | os.PathLike, mappings: dict[str, str] | None = None) -> str:
    """Expand a xacro file path or xacro XML text into URDF XML text.

    Args:
        source: path to a xacro file (includes resolve relative to it) or xacro XML text.
        mappings: {arg name: value} for ``xacro:arg`` (``$(arg name)``).

    Raises:
        UrdfError: xacro is not installed, or the expansion fails (its message).
    """
    try:
        import xacro
    except ImportError:
        raise UrdfError('this robot description is xacro; install the xacro package '
                        '(pip install xacro) or expand it first: xacro FILE > robot.urdf'
                        ) from None
    text = str(source)
    is_text = text.lstrip().startswith('<')
    name = '' if is_text else f' {text}'
    chatter = io.StringIO()  # xacro's own warnings stay out of the user's terminal
    try:
        with contextlib.redirect_stderr(chatter):
            if is_text:
                doc = xacro.parse(text)
                xacro.process_doc(doc, mappings=dict(mappings or {}))
            else:
                doc = xacro.process_file(text, mappings=dict(mappings or {}))
    except xacro.XacroException as exc:
        raise UrdfError(f'xacro{name}: {" ".join(str(exc).split())}') from None
    except xml.parsers.expat.ExpatError as exc:
        raise UrdfError(f'xacro{name}: invalid XML: {exc}') from None
    except (OSError, KeyError, NameError, ValueError, TypeError) as exc:
        raise UrdfError(f'xacro{name}: {type(exc).__name__}: {exc}') from None
    return doc.toxml()


def read_description(source: str | os.PathLike, mappings: Mappings | None = None) -> str:
    """URDF XML text from a ``.urdf``/``.xacro`` path or XML (URDF or xacro) text.

    Args:
        source: file path or XML text.
        mappings: xacro arguments, {name: value} or ``['name:=value', ...]``; only for
            xacro sources.

    Raises:
        UrdfError: missing or unreadable file, failed xacro expansion.
        InputError: malformed mappings, or mappings given for a plain URDF.
    """
    mappings = parse_mappings(mappings)
    text = str(source)
    if text.lstrip().startswith('<'):
        if is_xacro(text):
            return expand_xacro(text, mappings)
        xml = text
    else:
        if not os.path.isfile(text):
            raise UrdfError(f'robot description {text!r}: {_not_a_file(text)}')
        try:
            with open(text, encoding='utf-8') as handle:
                xml = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise UrdfError(f'cannot read robot description {text!r}: {exc}') from None
        if text.endswith('.xacro') or is_xacro(xml):
            return expand_xacro(text, mappings)
    if mappings:
        raise InputError(f'xacro arguments {sorted(mappings)} given, but the robot '
                         'description is plain URDF (no xacro in it)')
    return xml


def _not_a_file(path):
    """Why ``path`` is not a readable regular file (for the one-line error)."""
    if os.path.islink(path) and not os.path.exists(path):
        try:
            os.stat(path)
        except OSError as exc:
            return f'broken or looping symbolic link ({exc.strerror})'
    if os.path.isdir(path):
        return 'is a directory, not a file'
    if os.path.exists(path):
        return 'is not a regular file (a FIFO, socket or device)'
    return 'file not found'
