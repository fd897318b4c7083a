package app

import "github.com/rightsize/rightsize/internal/app/studyrun"

// StudyOptions are study run's flags (studyrun.StudyOptions).
type StudyOptions = studyrun.StudyOptions

// StudyHooks are what a study needs of the command line besides running
// its steps (studyrun.StudyHooks).
type StudyHooks = studyrun.StudyHooks

// RunStudy runs a study's steps, resumed from the history catalog, then
// plans a VM and writes the report (studyrun.RunStudy).
var RunStudy = studyrun.RunStudy
