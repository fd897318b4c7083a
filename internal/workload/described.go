package workload

import "sync"

// Described holds an Instance's InstanceInfo for concurrent use; embed it to
// implement Instance.Info. The zero value is ready.
type Described struct {
	mu   sync.Mutex
	info InstanceInfo
}

// SetInfo replaces the description.
func (d *Described) SetInfo(i InstanceInfo) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.info = i
}

// Info returns a copy of the description.
func (d *Described) Info() InstanceInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	i := d.info
	i.Notes = append([]string(nil), d.info.Notes...)
	return i
}

// Note adds a sentence to the notes, once.
func (d *Described) Note(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range d.info.Notes {
		if n == s {
			return
		}
	}
	d.info.Notes = append(d.info.Notes, s)
}

// Update changes the description under its lock.
func (d *Described) Update(fn func(*InstanceInfo)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn(&d.info)
}
