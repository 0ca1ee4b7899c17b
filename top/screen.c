/* The interactive view: the frame's lines drawn with ncurses, redrawn at
 * each refresh like top(1); 'q' quits. Lines wider than the terminal are
 * cut, and a terminal too short shows the first lines. */
#include "top.h"

#include <curses.h>
#include <string.h>
#include <unistd.h>

static SCREEN *screen;

int top_screen_open(void)
{
    /* newterm, not initscr: initscr exits the program when the terminal
     * cannot be used (TERM unset, not a terminal). */
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO) || !(screen = newterm(NULL, stdout, stdin)))
        return -1;
    set_term(screen);
    cbreak();
    noecho();
    nodelay(stdscr, TRUE);
    keypad(stdscr, TRUE);
    curs_set(0);
    endwin(); /* until the first refresh: messages before it stay readable */
    return 0;
}

int top_screen_key(void)
{
    int c, quit = 0;
    while ((c = getch()) != ERR)
        if (c == 'q' || c == 'Q') quit = 'q';
    return quit;
}

/* The frame's first line (the clock) and the pool lines stand out. */
static int line_attr(const char *line, int row)
{
    if (row == 0 || strncmp(line, "pool ", 5) == 0) return A_BOLD;
    if (strstr(line, "advice: [")) return A_REVERSE;
    return A_NORMAL;
}

int top_screen_draw(const char *text, const char *footer)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    erase();
    int row = 0;
    for (const char *p = text; *p && row < rows - 1; row++) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        attrset(line_attr(p, row));
        mvaddnstr(row, 0, p, n < cols ? n : cols);
        p = nl ? nl + 1 : p + n;
    }
    attrset(A_REVERSE);
    mvaddnstr(rows - 1, 0, footer, cols);
    attrset(A_NORMAL);
    refresh();
    return top_screen_key();
}

void top_screen_close(void)
{
    if (!screen) return;
    endwin();
    delscreen(screen);
    screen = NULL;
}
