import { startPage } from './page.js';

startPage({
  title: 'Carpool',
  sections: [
    {
      id: 'departments',
      title: 'By department',
      report: 'carpool_departments',
      note:
        'Late-return rate = late ÷ checked-out bookings, from booking_status only. Utilisation = booked hours ÷ available hours. ' +
        'Median approval time counts only bookings a sync saw waiting for approval before they were decided: ' +
        'blank (unknown) while every booking was first synced already decided, as after a first sync of past months.',
      chart: {
        type: 'bar',
        x: 'department',
        y: ['late_return_rate', 'utilisation'],
        labels: ['late-return rate', 'utilisation'],
        percent: true,
      },
    },
    {
      id: 'status',
      title: 'Bookings by status',
      report: 'carpool_status',
      chart: { type: 'doughnut', x: 'booking_status', y: ['bookings'] },
    },
    { id: 'bookings', title: 'Bookings', report: 'carpool' },
    { id: 'setup', title: 'Setup health (SETUP_INCOMPLETE)', report: 'setup_health' },
  ],
});
