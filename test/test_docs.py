"""docs/ cannot rot: every public dynamics function cites its seed equation and the
formulations page lists them all; every `bash` block in docs/ runs as written."""

import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')))


def _generator():
    from robodyn_ros import generated_docs
    return generated_docs


def _commands():
    for page in PAGES:
        text = open(page, encoding='utf-8').read()
        for block in re.findall(r'```bash\n(.*?)```', text, flags=re.S):
            for line in block.replace('\\\n', ' ').splitlines():
                if line.strip() and not line.lstrip().startswith('#'):
                    yield os.path.basename(page), line.strip()


def test_every_public_dynamics_function_cites_a_seed_equation():
    assert _generator().uncited() == []


def test_formulations_page_lists_every_cited_function():
    generator = _generator()
    page = os.path.join(ROOT, 'docs', 'formulations.md')
    text = open(page, encoding='utf-8').read()
    assert generator.render(text, ['formulations']) == text, \
        'docs/formulations.md is out of date: run robodyn docs --only formulations'
    for name, *_ in generator.citations():
        assert f'`{name}`' in text


def test_every_page_is_linked_from_the_index_and_has_a_command():
    index = open(os.path.join(ROOT, 'docs', 'README.md'), encoding='utf-8').read()
    pages = {os.path.basename(p) for p in PAGES} - {'README.md'}
    assert all(f'({page})' in index for page in pages)
    assert pages <= {page for page, _ in _commands()}


@pytest.mark.integration  # runs the documented commands: about a minute
@pytest.mark.parametrize('page, command', list(_commands()), ids=lambda v: v[:60])
def test_documented_command_runs(page, command):
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep +
               os.environ.get('PATH', ''))
    result = subprocess.run(command, shell=True, cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, f'{page}: {command}\n{result.stdout[-1500:]}' \
                                   f'{result.stderr[-1500:]}'


def test_every_module_the_architecture_page_names_exists():
    """docs/architecture.md names modules by path (`control/laws.py`) and in its layout
    block (`laws.py` under `control/`): each must exist, so the page follows a move."""
    text = open(os.path.join(ROOT, 'docs', 'architecture.md'), encoding='utf-8').read()
    package = os.path.join(ROOT, 'robodyn_ros')
    named = set(re.findall(r'`((?:[a-z_]+/)+[a-z_]+\.py)', text))
    missing = [path for path in named if not os.path.exists(os.path.join(package, path))
               and not os.path.exists(os.path.join(ROOT, path))]
    layout = text.split('## Layout', 1)[1].split('```', 2)[1]
    folder, room = '', package  # a top-level folder of the layout: its room
    for line in layout.splitlines():
        head = re.match(r'\s*([a-z_]+/)\s', line)
        if head:
            indent = len(line) - len(line.lstrip())
            if indent == 0:
                room, folder = os.path.join(ROOT, head.group(1)), ''
            else:
                folder = head.group(1) if indent <= 2 else folder.split('/')[0] + '/' + \
                    head.group(1)
        for module in re.findall(r'\b([a-z_]+\.py)\b', line):
            where = [os.path.join(room, folder, module), os.path.join(room, module),
                     os.path.join(ROOT, module)]
            if not any(os.path.exists(w) for w in where):
                missing.append(folder + module)
    assert len(named) >= 20 and not missing, missing
