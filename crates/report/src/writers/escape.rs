//! Control characters taken out of text for the terminal and Markdown; shared
//! by both writers (and the terminal chart), so in a module below them.

/// Text with its control characters (escape sequences, carriage returns,
/// bidirectional overrides) replaced, for the terminal and for Markdown:
/// a kernel name cannot move the cursor or recolour the screen. Line breaks
/// become spaces unless `keep_newlines`.
pub(crate) fn clean(s: &str, keep_newlines: bool) -> String {
    s.chars()
        .map(|c| match c {
            '\n' if keep_newlines => '\n',
            '\n' | '\t' | '\r' => ' ',
            c if c.is_control() || roofline_model::is_bidi_control(c) => '\u{FFFD}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_cannot_reach_the_terminal() {
        let name = "evil\u{1b}[2J\u{1b}]0;title\u{7}\r\nname\u{202E}txt";
        let c = clean(name, false);
        assert!(!c.chars().any(|ch| ch.is_control()), "{c:?}");
        assert!(!c.contains('\u{202E}'));
        assert!(c.contains("evil") && c.contains("name"));
    }

    /// Hardening (issue 27), item 5: bidirectional controls (U+202E and the
    /// isolates U+2066-2069 among them) reached the terminal raw, so that a
    /// name could visually rewrite its row.
    #[test]
    fn every_bidirectional_control_is_escaped_like_the_other_controls() {
        let bidi = [
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
            '\u{200E}', '\u{200F}', '\u{061C}',
        ];
        for b in bidi {
            let c = clean(&format!("gemm{b}kernel"), false);
            assert_eq!(c, "gemm\u{FFFD}kernel", "U+{:04X}", b as u32);
        }
        assert_eq!(clean("ünïcødé → ok", false), "ünïcødé → ok", "other text is kept");
    }
}
