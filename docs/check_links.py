"""Check a built documentation site: every internal link resolves, and nothing is loaded from the
network (so the site opens from ``file://`` with the same result).

    python docs/check_links.py docs/_build/html

For every ``.html`` file: each ``href`` / ``src`` that is not external (no scheme) must name a file
of the site, and a ``#fragment`` must be an ``id`` (or ``name``) in that file. Scripts, style sheets,
images and frames must not come from ``http(s)://`` (links to other sites may). Exit status 1 and
one line per problem when any is found.
"""

from __future__ import annotations

import sys
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: (tag, attribute) pairs whose URL the browser loads to draw the page, not on a click
LOADED = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src")}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, url)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("id", "name"):
            if attrs.get(name):
                self.ids.add(attrs[name])
        for name in ("href", "src"):
            if attrs.get(name) is not None:
                self.urls.append((tag, name, attrs[name]))


@cache
def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def problems(site: Path) -> list[str]:
    """Every broken internal link and every resource loaded from the network, one line each."""
    site = site.resolve()
    found = []
    for page_path in sorted(site.rglob("*.html")):
        if "_static" in page_path.relative_to(site).parts:  # the theme's template fragments, not pages
            continue
        for tag, attribute, url in _parse(page_path).urls:
            parts = urlsplit(url)
            where = f"{page_path.relative_to(site)}: <{tag} {attribute}={url!r}>"
            if parts.scheme in ("http", "https") or url.startswith("//"):
                if (tag, attribute) in LOADED:
                    found.append(f"{where} loads from the network")
                continue
            if parts.scheme or not (parts.path or parts.fragment):  # mailto:, data:, javascript:, "#"
                continue
            target = (page_path.parent / unquote(parts.path)).resolve() if parts.path else page_path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site not in target.parents:
                found.append(f"{where} names a missing file")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
                found.append(f"{where} names a missing anchor")
    return found


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python docs/check_links.py BUILT_SITE_FOLDER", file=sys.stderr)
        return 2
    found = problems(Path(args[0]))
    for line in found:
        print(line)
    pages = sum(1 for _ in Path(args[0]).rglob("*.html"))
    print(f"{pages} pages checked: " + (f"{len(found)} problems" if found else "every internal link resolves, "
                                                                         "nothing loads from the network"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
