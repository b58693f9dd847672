//! The log: every action and what it caused, in words.

use egui::{Color32, RichText, Ui};

use crate::app::GameView;

pub fn log_ui(view: &GameView, ui: &mut Ui) {
    ui.heading("Log");
    egui::ScrollArea::vertical()
        .stick_to_bottom(true)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if view.session.steps().is_empty() {
                ui.label("Nothing has happened yet: roll the dice.");
            }
            for step in view.session.steps() {
                for event in &step.events {
                    // The tally has its own table in the scores panel.
                    let text = match event {
                        rules::Event::GameEnded(score) => {
                            let winners: Vec<&str> =
                                score.winners.iter().map(|p| p.name()).collect();
                            format!(
                                "The game is over. Winner: {} ({}).",
                                winners.join(", "),
                                score.decided_by
                            )
                        }
                        event => event.to_string(),
                    };
                    let line = if step.overridden {
                        RichText::new(text).color(Color32::from_rgb(230, 140, 40))
                    } else {
                        RichText::new(text)
                    };
                    ui.label(line);
                }
            }
        });
}
