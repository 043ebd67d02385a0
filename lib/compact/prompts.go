package compact

import "strings"

// The summariser's prompts (our wording of the reference's structure).
const (
	SystemPrompt = "You are a context summarization assistant. You read a conversation between a user and an AI coding assistant and write a structured summary in exactly the format asked for. Do not continue the conversation and do not answer questions in it. Output only the summary."

	initialPrompt = `The messages above are a conversation to summarize. Write a structured context checkpoint that another language model can resume the work from. If the conversation ends with a question or request to the user that was not answered, keep that exact question.

Use these sections (leave out a section that would be empty):

## Goal
What the user is trying to achieve (several goals if there are several tasks).

## Constraints & Preferences
- Requirements and preferences the user stated

## Progress
### Done
- [x] Completed work
### In Progress
- [ ] Work under way
### Blocked
- Problems that stop progress

## Key Decisions
- **Decision**: why

## Next Steps
1. What to do next, in order

## Critical Context
- Data, references and pending questions needed to go on

## Additional Notes
- Anything else worth keeping

Keep it concise. Keep exact file paths, function names, error messages, relevant command output and the state of the repository (branch, uncommitted changes). Output only the summary.`

	updatePrompt = `The messages above are new conversation to merge into the summary in <previous-summary>. Keep all information from the previous summary; add the new progress, decisions and context. Move finished "In Progress" items to "Done" and rewrite "Next Steps". Keep exact identifiers, paths and errors. You may drop what is no longer relevant. A new unanswered question or request to the user goes into Critical Context, replacing an older one that has been answered since.

Use the same sections as the previous summary (Goal; Constraints & Preferences; Progress with Done / In Progress / Blocked; Key Decisions; Next Steps; Critical Context; Additional Notes), preserving what is there and adding what is new. Output only the summary.`

	turnPrefixPrompt = `The messages above are the beginning of one turn that was too large to keep; its end is kept verbatim after this summary. Summarize the beginning so the kept end makes sense.

## Original Request
What the user asked for in this turn.

## Early Progress
What was done so far in this turn.

## Context for Suffix
What the kept part needs to be understood.

Keep it concise and keep exact identifiers. Output only the summary.`

	branchPrompt = `The messages above are a branch of the conversation that the user explored and then left to go back to an earlier point. Summarize it so the work can go on from that point with what was learned.

## Goal
What the user was trying to achieve on this branch.

## Constraints & Preferences
- Requirements and preferences the user stated ((none) if none)

## Progress
### Done
- [x] What was completed
### In Progress
- [ ] What was being worked on
### Blocked
- What stood in the way, if anything

## Key Decisions
- **Decision**: why it was made

## Next Steps
1. What should happen next

Keep it concise and keep exact identifiers. Output only the summary.`

	// BranchPreamble starts every branch summary (the reference's two
	// lines, followed by a blank line where the reference has none).
	BranchPreamble = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"

	// NoBranchContent is the branch summary when the branch has no messages.
	NoBranchContent = "No content to summarize"

	// NoHistory is the summary when there is nothing to summarize.
	NoHistory = "No prior history."
)

// HistoryPrompt is the user message asking for the history summary.
func HistoryPrompt(conversation, previous, instructions string) string {
	var b strings.Builder
	b.WriteString("<conversation>\n" + conversation + "\n</conversation>\n\n")
	base := initialPrompt
	if previous != "" {
		b.WriteString("<previous-summary>\n" + previous + "\n</previous-summary>\n\n")
		base = updatePrompt
	}
	b.WriteString(base)
	if instructions != "" {
		b.WriteString("\n\nAdditional focus: " + instructions)
	}
	return b.String()
}

// TurnPrefixPrompt asks for the summary of a split turn's prefix.
func TurnPrefixPrompt(conversation string) string {
	return "<conversation>\n" + conversation + "\n</conversation>\n\n" + turnPrefixPrompt
}

// BranchPrompt asks for a branch summary; instructions replace the
// default prompt.
func BranchPrompt(conversation, instructions string) string {
	p := branchPrompt
	if instructions != "" {
		p = instructions
	}
	return "<conversation>\n" + conversation + "\n</conversation>\n\n" + p
}

// MergeSplit joins the history summary and a split turn's prefix summary.
func MergeSplit(history, prefix string) string {
	return history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix
}
