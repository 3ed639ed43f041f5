//! Items and notes laid out with a writer's own marks; shared by the writers
//! for people, so in a module below them.

use crate::view::{Item, Note, NoteKind};

/// Entries with a heading, lines and an action, laid out by a writer:
/// `head` opens an entry, `line` and `action` render what is under it,
/// `close` ends it.
pub(crate) fn each_item(
    items: &[Item],
    head: impl Fn(&Item) -> String,
    line: impl Fn(&str) -> String,
    action: impl Fn(&str) -> String,
    close: &str,
) -> String {
    let mut s = String::new();
    for i in items {
        s.push_str(&head(i));
        for l in &i.lines {
            s.push_str(&line(l));
        }
        if let Some(a) = &i.action {
            s.push_str(&action(a));
        }
        s.push_str(close);
    }
    s
}

/// Notes, each escaped and put between the opening and closing strings of
/// its kind: `marks` holds them for information, notes and warnings.
pub(crate) fn each_note(notes: &[Note], marks: [(&str, &str); 3], escape: impl Fn(&str) -> String) -> String {
    notes
        .iter()
        .map(|n| {
            let (open, close) = match n.kind {
                NoteKind::Info => marks[0],
                NoteKind::Note => marks[1],
                NoteKind::Warning => marks[2],
            };
            format!("{open}{}{close}", escape(&n.text))
        })
        .collect()
}
