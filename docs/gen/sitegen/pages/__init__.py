"""One module per kind of generated page; each renders its Jinja2 template(s) from docs/gen/templates/.

A module offers ``pages(context, ...) -> {src: Markdown}`` and, when hand-written
pages use its tables, ``DIRECTIVES``: ``{name: function(context, args, options, src)}``
for ``<!-- tgdocs:name ... -->``. ``sitegen.site`` wires them.
"""
