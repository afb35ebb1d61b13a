"""The Chat view's templates: the file's, files loaded with ctrl+l, and the one edited in the view.

``TemplateScreen`` is the Chat view's base: it holds the templates the selector offers (the file's
own, never changed; a loaded file's by its file name, read again under the same name; ``(edited)``;
``(none)`` for a file without any, which llama-server renders as ChatML), the template editor that
ctrl+s puts in the conversation's place, and the load dialog (``template_dialog.py``). Every change
of template goes through ``rerender``: the view renders in its worker, within the template deadline,
never on the keystroke.
"""

from __future__ import annotations

from textual import on
from textual.widgets import Select

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.render import ChatTemplateError, templates_of
from tui_tok.explore.chat.template_file import entry_name
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.screens.template_dialog import TemplateFileDialog
from tui_tok.ui.widgets.chat_bar import ChatBar
from tui_tok.ui.widgets.chat_source import TemplateEditor

EDITED = "(edited)"
"""The template typed or edited in the view."""
NONE = "(none)"
"""The only template of a file without one: llama-server renders ChatML (``llama_server.apply``)."""


class TemplateScreen(ViewScreen):
    """Templates and their editor; the subclass composes ``ChatBar`` and ``TemplateEditor`` (``#chat-source``)."""

    def __init__(self) -> None:
        super().__init__()
        self.file_templates = templates_of(self.session.metadata)
        """The file's own templates (never changed)."""
        self.templates = dict(self.file_templates) or {NONE: ""}
        """What the template selector offers: the file's, then loaded files' and ``(edited)``."""
        self._loaded_from: dict[str, str] = {}
        """Loaded templates' names and the path each was read from."""
        self.error: TuiTokError | None = None
        """The error shown instead of a prompt, if any."""

    def rerender(self) -> None:
        """Render the current request (the subclass, in its worker)."""
        raise NotImplementedError

    def focus_conversation(self, last: bool = False) -> None:
        raise NotImplementedError

    @property
    def template_name(self) -> str:
        return self.query_one(ChatBar).choices().template

    @property
    def tool_use_template(self) -> str | None:
        """The file's ``tool_use`` template when the current one is the file's default (llama-server
        renders tools with it); none for a loaded or edited one, as with ``--chat-template-file``."""
        return self.file_templates.get("tool_use") if self.template_name in ("default", NONE) else None

    @on(Select.Changed, "#chat-template")
    def _template_chosen(self) -> None:
        source = self.query_one("#chat-source", TemplateEditor)
        name = self.template_name
        # the edited template's text is the editor's own while it holds it (an edit may be under way): not loaded back
        if self.has_class("-source") and not (name == EDITED and source.template_name == EDITED):
            source.show(name, self.templates.get(name, ""))

    def action_show_source(self) -> None:
        """Show the current template's source in the editor (the cursor on the error, if any), or
        the conversation again."""
        showing = not self.has_class("-source")
        self.set_class(showing, "-source")
        if not showing:
            self.focus_conversation()
            return
        err = self.error if isinstance(self.error, ChatTemplateError) else None
        source = self.query_one("#chat-source", TemplateEditor)
        name = self.template_name
        source.show(
            name, self.templates.get(name, ""), line=err.line if err else None, column=err.column if err else None
        )
        source.focus()

    def _source_edited(self) -> None:
        """An edit in the template editor (called inside it): its text is the ``(edited)`` template."""
        source = self.query_one("#chat-source", TemplateEditor)
        text = source.text
        if text == self.templates.get(self.template_name):
            return  # a template loaded into the editor, not an edit
        self.templates[EDITED] = text
        source.rename(EDITED)
        if self.template_name != EDITED:
            self._offer_templates(EDITED)  # its Select.Changed re-renders
        else:
            self.rerender()

    def action_load_template(self) -> None:
        """Ask for a template file; once read, it is a template of its own, chosen and rendered."""

        def done(result: tuple[str, str] | None) -> None:
            if result is not None:
                self.add_template(result[0], result[1], path=result[0])

        self.app.push_screen(TemplateFileDialog(next(reversed(self._loaded_from.values()), "")), done)

    def add_template(self, name: str, text: str, *, path: str | None = None) -> str:
        """Offer ``text`` as a template and choose it: a file's by its file name (``path`` read again
        replaces it), ``(edited)`` as itself. Returns the name it goes by."""
        if path is not None:
            same = [n for n, p in self._loaded_from.items() if p == path]
            name = same[0] if same else entry_name(path, set(self.templates))
            self._loaded_from[name] = path
        self.templates[name] = text
        self._offer_templates(name)
        if self.has_class("-source"):
            self.query_one("#chat-source", TemplateEditor).show(name, text)
        return name

    def added_templates(self) -> dict[str, str]:
        """The templates loaded or typed in the view (what a saved session keeps)."""
        return {n: t for n, t in self.templates.items() if n not in self.file_templates and n != NONE}

    def _offer_templates(self, value: str) -> None:
        self.query_one(ChatBar).set_templates(self.templates, value)
