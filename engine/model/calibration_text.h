// The built-in calibration text for activation-aware INT4 conversion: a few hundred tokens of
// our own English prose, dialogue and code, so the converter needs no data set. The mix matters
// more than the content: channels that light up for code or quotes should be seen once.
#pragma once

#include <string_view>

namespace hearth::model {

inline constexpr std::string_view kCalibrationText =
    R"CAL(The kettle had been singing for a full minute before Mara noticed it. She crossed the small kitchen, lifted it off the stove and poured the water over the leaves, watching the colour bloom from pale gold to amber. Outside, the rain had thinned to a drizzle, and the lamps along the harbour wall were coming on one by one.

"You're up early," said her brother from the doorway.
"I never went to sleep. The report is due at nine, and the numbers still don't add up."
"Show me. Two pairs of eyes are better than one."
"Fine, but you have to promise not to laugh at my spreadsheet."

A good explanation starts with what the reader already knows. If you want to teach someone how a bicycle stays upright, begin with a spinning coin, then a rolling wheel, and only then talk about steering and balance. Each step should be small enough to check, and each check should feel earned.

def moving_average(values, window):
    """Return the mean of each run of `window` consecutive values."""
    if window <= 0:
        raise ValueError("window must be positive")
    total = sum(values[:window])
    result = [total / window]
    for i in range(window, len(values)):
        total += values[i] - values[i - window]
        result.append(total / window)
    return result

int count_words(const std::string& text) {
    int count = 0;
    bool in_word = false;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) in_word = false;
        else if (!in_word) { in_word = true; ++count; }
    }
    return count;
}

Q: How many days are there in a leap year?
A: There are 366 days, because February has 29 days instead of 28.
Q: What is 17 times 23?
A: 17 times 23 is 391.

The committee met on Tuesday, 14 March, to review the budget for the new library. Members agreed to spend 42,000 euros on shelving, lighting and a reading room for children, and to ask the town council for a further grant next spring. The minutes were approved without changes.

User: Can you suggest a name for a grey cat who likes to sit on keyboards?
Assistant: How about "Ctrl", "Pixel" or "Ash"? If she walks across the keys while you work, "Typo" might be the most honest choice.
)CAL";

}  // namespace hearth::model
