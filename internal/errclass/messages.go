package errclass

// MessagesPerClass is how many distinct messages Messages keeps of each
// class; errors of a class with another message are counted in the class
// only.
const MessagesPerClass = 3

// MaxMessageLen is how many bytes of a message Messages keeps.
const MaxMessageLen = 300

// Message is one distinct error message of a class and how many errors had it.
type Message struct {
	Class Class
	Text  string
	Count int64
}

// Messages keeps the first MessagesPerClass distinct messages of each class
// with their counts, so that a run can say what failed, not only how often.
// The zero value is ready to use. It is not safe for concurrent use: each
// virtual user keeps its own, added up on a tick like Counts.
type Messages struct {
	list []Message
}

// Add counts one error err of class c. The message is err.Error(), cut to
// MaxMessageLen bytes.
func (m *Messages) Add(c Class, err error) {
	if err == nil || c == None {
		return
	}
	m.add(Message{Class: c, Text: clip(err.Error()), Count: 1})
}

func (m *Messages) add(msg Message) {
	n := 0
	for i := range m.list {
		e := &m.list[i]
		if e.Class != msg.Class {
			continue
		}
		if e.Text == msg.Text {
			e.Count += msg.Count
			return
		}
		n++
	}
	if n < MessagesPerClass {
		m.list = append(m.list, msg)
	}
}

// Merge adds o's messages into m.
func (m *Messages) Merge(o *Messages) {
	for _, msg := range o.list {
		m.add(msg)
	}
}

// Reset empties m, keeping its memory.
func (m *Messages) Reset() { m.list = m.list[:0] }

// List returns the messages kept, in the order they were first seen (a
// copy; nil when there are none).
func (m *Messages) List() []Message {
	if len(m.list) == 0 {
		return nil
	}
	return append([]Message(nil), m.list...)
}

// clip cuts s to MaxMessageLen bytes on a rune boundary, marking the cut.
func clip(s string) string {
	if len(s) <= MaxMessageLen {
		return s
	}
	cut := MaxMessageLen
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
