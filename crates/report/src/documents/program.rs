//! The program view as sections: where the GPU time goes (by verdict), the
//! top opportunities in seconds saved, and the time by group. An analysis
//! leads with these; a timeline (per-launch durations, NVTX groups) can
//! describe its own [`ProgramView`] through the same sections.

use roofline_analysis::{GroupBy, Opportunity, ProgramView, SteadyState, Verdict};
use roofline_model::{format_percent, Unit};

use crate::view::{Cell, Column, Describe, Fact, Note, Quantity, Section, Show, Table, Tone, Value};

/// How many opportunities the narrow terminal view lists.
pub const GLANCE_OPPORTUNITIES: usize = 3;

/// How a verdict may be coloured: memory and compute as on the chart,
/// latency as a problem.
pub(crate) fn verdict_tone(v: Verdict) -> Option<Tone> {
    match v {
        Verdict::MemoryBound => Some(Tone::Memory),
        Verdict::ComputeBound => Some(Tone::Compute),
        Verdict::LatencyBound => Some(Tone::Poor),
        Verdict::Communication | Verdict::NoCounters => None,
    }
}

fn seconds(v: f64) -> Value {
    Value::new(v, Quantity::Si(Unit::Second))
}

fn percent(share: f64) -> Cell {
    Cell::value(Some(100.0 * share), Quantity::Percent)
}

/// "at the roof" or "at 80% of the roof".
pub(crate) fn target_words(view: &ProgramView) -> String {
    if (view.target_pct_of_roof - 100.0).abs() < 1e-9 {
        "at its roof".into()
    } else {
        format!("at {} of its roof", format_percent(view.target_pct_of_roof))
    }
}

/// The time under each verdict, with what it would save.
pub(crate) fn verdict_table(view: &ProgramView) -> Table {
    let mut t = Table::new(
        "verdicts",
        vec![
            Column::text("verdict", "verdict"),
            Column::value("time", "GPU time", Quantity::Si(Unit::Second)),
            Column::value("share", "share", Quantity::Percent).help("share of the program's GPU time"),
            Column::value("kernels", "kernels", Quantity::Count),
            Column::value("saved", "could save", Quantity::Si(Unit::Second))
                .help("seconds saved if each of these kernels reached the target share of its roof"),
        ],
    );
    for v in &view.by_verdict {
        t.push(vec![
            Cell::toned(v.verdict.label(), verdict_tone(v.verdict)),
            seconds(v.seconds).cell(),
            percent(v.share),
            Cell::value(Some(v.kernels as f64), Quantity::Count),
            if v.verdict == Verdict::NoCounters { Cell::Empty } else { seconds(v.saved_s).cell() },
        ]);
    }
    t
}

/// Opportunities, most seconds saved first.
pub(crate) fn opportunity_table(top: &[Opportunity]) -> Table {
    let mut t = Table::new(
        "opportunities",
        vec![
            Column::value("rank", "#", Quantity::Count),
            Column::text("kernel", "kernel").show(Show::Readers),
            Column::text("id", "ID").show(Show::Data),
            Column::text("name", "name").show(Show::Data),
            Column::value("time", "time", Quantity::Si(Unit::Second)).show(Show::Wide),
            Column::value("share", "share", Quantity::Percent).help("share of the program's GPU time"),
            Column::value("pct_of_roof", "% of roof", Quantity::Percent),
            Column::text("verdict", "verdict"),
            Column::value("saved", "saves", Quantity::Si(Unit::Second)).help(
                "seconds saved if the kernel reached the target share of its roof: time x (1 - % of roof / target)",
            ),
            Column::value("saved_share", "of GPU time", Quantity::Percent)
                .show(Show::Wide)
                .help("those seconds as a share of the program's GPU time"),
        ],
    );
    for (i, o) in top.iter().enumerate() {
        t.push(vec![
            Cell::value(Some((i + 1) as f64), Quantity::Count),
            Cell::Name { name: o.name.clone(), id: o.id.clone(), full: o.full_name.clone() },
            Cell::text(&o.id),
            Cell::text(&o.full_name),
            seconds(o.seconds).cell(),
            percent(o.share),
            Cell::value(Some(o.pct_of_roof), Quantity::Percent),
            Cell::toned(o.verdict.label(), verdict_tone(o.verdict)),
            seconds(o.saved_s).cell(),
            percent(o.saved_share),
        ]);
    }
    t
}

/// The time by group (kernel name or range).
pub(crate) fn group_table(view: &ProgramView) -> Table {
    let what = match view.group_by {
        GroupBy::Name => "kernel name",
        GroupBy::Labels => "range",
        GroupBy::Library => "library",
        GroupBy::Origin => "origin",
    };
    let mut t = Table::new(
        "groups",
        vec![
            Column::text("group", what),
            Column::value("time", "GPU time", Quantity::Si(Unit::Second)),
            Column::value("share", "share", Quantity::Percent),
            Column::value("launches", "launches", Quantity::Count),
            Column::value("kernels", "kernels", Quantity::Count),
            Column::text("verdict", "most time"),
            Column::value("saved", "could save", Quantity::Si(Unit::Second)),
        ],
    );
    for g in &view.groups {
        t.push(vec![
            Cell::text(&g.label),
            seconds(g.seconds).cell(),
            percent(g.share),
            Cell::value(Some(g.launches as f64), Quantity::Count),
            Cell::value(Some(g.kernels as f64), Quantity::Count),
            Cell::toned(g.verdict.label(), verdict_tone(g.verdict)),
            seconds(g.saved_s).cell(),
        ]);
    }
    t
}

/// "14.8 ms in 17 kernels (17 launches), all of it under a roof".
pub(crate) fn time_fact(view: &ProgramView, placed_words: &str) -> Fact {
    let placed = if view.total_s > 0.0 { 100.0 * view.placed_s / view.total_s } else { 0.0 };
    let coverage = if (placed - 100.0).abs() < 1e-9 {
        format!("all of it {placed_words}")
    } else {
        format!("{} of it {placed_words}", format_percent(placed))
    };
    Fact::new(
        "gpu_time",
        "GPU time",
        seconds(view.total_s).note(format!("{} kernels, {} launches; {coverage}", view.kernels, view.launches)).cell(),
    )
}

/// "steps 2 to 4 of 5 (NVTX ranges "step N"); left out: 12 ms of GPU time in
/// 40 launches (warm-up), 6 kernels that ran only there".
pub(crate) fn steady_fact(s: &SteadyState) -> Fact {
    let which = if s.steps == 1 { s.first_label.clone() } else { format!("{} to {}", s.first_label, s.last_label) };
    let text = format!(
        "{which}, {} of {} steps ({}); left out: {} of GPU time in {} launches outside them (warm-up, set-up), {} kernel(s) that ran only there",
        s.steps,
        s.steps_total,
        s.basis,
        crate::view::value_text(&seconds(s.left_out_s)),
        s.left_out_launches,
        s.left_out_kernels
    );
    Fact::new("steady_state", "steady state", Cell::text(text))
}

/// The program view's sections after the facts that open them: the verdict
/// table (under `facts`), the top opportunities (three at a glance, all
/// kept in the wide view and on pages), and the groups when they join
/// anything (names shared by several kernels, or ranges).
pub(crate) fn program_sections(view: &ProgramView, facts: Vec<Fact>, placed_words: &str) -> Vec<Section> {
    let mut facts = facts;
    if let Some(s) = &view.steady {
        facts.push(steady_fact(s));
    }
    facts.push(time_fact(view, placed_words));
    let mut out = vec![Section::new("program", "Where the GPU time goes").with(facts).with(verdict_table(view))];
    let target = target_words(view);
    let saved = Note::info(format!(
        "Seconds saved if each kernel ran {target}: time x (1 - % of roof / {}); all kernels together: {} of {} ({}).",
        format_percent(view.target_pct_of_roof),
        crate::view::value_text(&seconds(view.saved_s)),
        crate::view::value_text(&seconds(view.total_s)),
        format_percent(if view.total_s > 0.0 { 100.0 * view.saved_s / view.total_s } else { 0.0 }),
    ));
    if view.opportunities.is_empty() {
        let why = if view.placed_s > 0.0 {
            format!("No kernel would save time {target}: each reached it.")
        } else {
            "No kernel has a point under a roof (no counters), so none can be judged; the table lists each with its time."
                .to_string()
        };
        out.push(Section::new("opportunities", "Opportunities").with(vec![Note::info(why)]));
    } else {
        let glance = &view.opportunities[..view.opportunities.len().min(GLANCE_OPPORTUNITIES)];
        out.push(
            Section::new(
                "opportunities-glance",
                format!("Top {} opportunities: GPU time saved {target}", glance.len()),
            )
            .show(Show::Glance)
            .with(opportunity_table(glance)),
        );
        out.push(
            Section::new(
                "opportunities",
                format!("Top {} opportunities: GPU time saved {target}", view.opportunities.len()),
            )
            .show(Show::Wide)
            .with(opportunity_table(&view.opportunities))
            .with(vec![saved]),
        );
    }
    let joins = view.group_by != GroupBy::Name || view.groups.iter().any(|g| g.kernels > 1);
    if joins && !view.groups.is_empty() {
        let title = match view.group_by {
            GroupBy::Name => "GPU time by kernel name",
            GroupBy::Labels => "GPU time by range",
            GroupBy::Library => "GPU time by library",
            GroupBy::Origin => "GPU time by library and role",
        };
        let more = view.group_count.saturating_sub(view.groups.len());
        let notes: Vec<Note> = (more > 0)
            .then(|| Note::info(format!("{more} more group(s) with less time are in the JSON's kernels.")))
            .into_iter()
            .collect();
        out.push(Section::new("groups", title).with(group_table(view)).with_some((!notes.is_empty()).then_some(notes)));
    }
    out
}

impl Describe for ProgramView {
    fn title(&self) -> String {
        "Where the GPU time goes".into()
    }

    fn sections(&self) -> Vec<Section> {
        program_sections(self, Vec::new(), "under a roof")
    }
}
